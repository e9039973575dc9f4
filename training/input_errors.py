"""A runner's answer to bad input: one `error:` line, whose message names the
file, line or field, instead of a traceback. Bad input is what the project's
own checks reject: a ValueError, a missing file or a RuntimeError of its own
(a locked or damaged output_dir) raised in its code. The same errors raised
deep in TensorFlow or Keras keep their traceback: those are bugs to report,
not inputs to fix.

Example:
>>> if __name__ == "__main__":
...     app.run(reporting_input_errors(main))
"""

import functools
import sys

_ERRORS = (ValueError, FileNotFoundError, NotADirectoryError, IsADirectoryError, PermissionError,
           RuntimeError)
_PACKAGES = {"checkpoints", "comparisons", "contracts", "data", "export", "families", "modeling", "tasks",
             "training", "utils"}


def raised_by_the_project(error):
    """Whether the innermost Python frame of `error`'s traceback is the
    project's code (a runner script, or a module of its packages)."""
    frame = error.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    module = frame.tb_frame.f_globals.get("__name__", "") if frame is not None else ""
    return module == "__main__" or module.startswith("run_") or module.split(".")[0] in _PACKAGES


def reporting_input_errors(main):
    """`main(argv)` exiting with `error: <message>` on bad input."""
    @functools.wraps(main)
    def run(argv):
        try:
            return main(argv)
        except _ERRORS as error:
            if not raised_by_the_project(error):
                raise
            sys.exit(f"error: {error}")
    return run
