"""`python data/pack_pretraining_data.py` as published before the script moved to the
repository root: runs `python pack_pretraining_data.py` with the same arguments."""

import os
import sys

if __name__ == "__main__":
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = os.path.join(root, "pack_pretraining_data.py")
    os.execv(sys.executable, [sys.executable, script, *sys.argv[1:]])
