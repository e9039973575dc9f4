"""`python data/build_vocab.py` as published before the script moved to the
repository root: runs `python build_vocab.py` with the same arguments."""

import os
import sys

if __name__ == "__main__":
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = os.path.join(root, "build_vocab.py")
    os.execv(sys.executable, [sys.executable, script, *sys.argv[1:]])
