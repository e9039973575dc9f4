"""One runner (`run_pretraining`, `run_classifier`, ...) as a long-lived process:
it imports TensorFlow and the runner once, then runs each command line it is
sent, exactly as `python <runner>.py <flags>` would (the flags parsed afresh
from their defaults, Keras's session cleared), so a comparison of hundreds of
short runs does not pay the start-up of each.

    python -m comparisons.worker run_classifier [--eager]   # from the repository root

Requests are JSON lines on stdin, `{"argv": [...]}`; after each run it prints
`MARK {"ok": ..., "error": ...}`. Its output is the runner's log; `-m` puts
the repository root, where the runners are, on the path. It exits at the end
of stdin, or when the process that started it is gone (a killed comparison
leaves no run behind holding an output folder). `--eager` runs the
runner's `tf.function`s eagerly (the tiny tier: tracing a graph costs more than
the few steps of a 16-wide model it would run).
"""

import importlib
import json
import os
import sys
import threading
import time
import traceback

MARK = "\x1ecompare-worker "


def exit_with_parent():
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def run(module, script, argv):
    """(ok, error message) of one command line."""
    import keras
    from absl import flags, logging
    try:
        flags.FLAGS.unparse_flags()
        flags.FLAGS([script, *argv])
        logging.set_verbosity(logging.INFO)  # as `app.run` logs: the trainer's progress is INFO
        keras.utils.clear_session()
        module.main([script])
        return True, None
    except SystemExit as e:  # a runner's `sys.exit("error: ...")`
        if e.code in (None, 0):
            return True, None
        return False, str(e.code)
    except Exception as e:  # noqa: BLE001  (reported to the comparison, which stops)
        traceback.print_exc()
        return False, f"{type(e).__name__}: {e}"


def main():
    runner = sys.argv[1]
    exit_with_parent()
    from absl import logging
    module = importlib.import_module(runner)
    if "--eager" in sys.argv[2:]:
        import tensorflow as tf
        tf.config.run_functions_eagerly(True)
    logging.use_absl_handler()
    print(MARK + json.dumps({"ok": True, "error": None}), flush=True)  # ready
    for line in sys.stdin:
        ok, error = run(module, f"{runner}.py", json.loads(line)["argv"])
        sys.stderr.flush()
        print(MARK + json.dumps({"ok": ok, "error": error}), flush=True)
    os._exit(0)  # at the end of stdin; TensorFlow's threads can stall an interpreter's shutdown


if __name__ == "__main__":
    main()
