"""The comparison's side of `comparisons.worker`: one process per runner,
started when first needed, each request's output written to its own log with
the trainer's progress shown (`demo.progress.StageOutput`)."""

import json
import os
import queue
import subprocess
import sys
import threading
import time

from comparisons.worker import MARK
from demo.progress import StageError, StageOutput, format_seconds, read_lines


class Workers:
    """Runs runner command lines in long-lived processes (`eager`: their
    `tf.function`s run eagerly).

    Example:
    >>> with Workers(root, env) as workers:
    ...     seconds = workers.run("run_classifier", ["--task_name=SST-2", ...], "logs/sst.log", "SST-2")
    """

    def __init__(self, root, env, eager=False):
        self.root, self.env, self.eager = root, env, eager
        self.processes = {}  # runner -> (Popen, line queue)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def _process(self, runner):
        if runner not in self.processes:
            command = [sys.executable, "-m", "comparisons.worker", runner, *(["--eager"] if self.eager else [])]
            process = subprocess.Popen(command, cwd=self.root, env=self.env, text=True, stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            lines = queue.Queue()
            threading.Thread(target=read_lines, args=(process.stdout, lines), daemon=True).start()
            self.processes[runner] = (process, lines)
            with open(os.devnull, "w", encoding="utf-8") as quiet:
                self._answer(runner, StageOutput(f"{runner} starting", quiet))
        return self.processes[runner]

    def _answer(self, runner, output):
        """The worker's answer to its last request, its other lines handled by `output`."""
        process, lines = self.processes[runner]
        end = output.follow(lines, lambda line: line.startswith(MARK))
        if end is None:
            self.processes.pop(runner)
            raise StageError(f"the {runner} worker ended (exit {process.wait()}); the end of its output:\n"
                             + "".join(output.tail))
        return json.loads(end[len(MARK):])

    def run(self, runner, argv, log_path, name, batch_size=None):
        """Runs `python <runner>.py argv...` in the runner's process, its output in
        `log_path`; returns the wall seconds. Raises StageError on failure."""
        start = time.time()
        process, _ = self._process(runner)
        os.makedirs(os.path.dirname(log_path), exist_ok=True)
        with open(log_path, "w", encoding="utf-8") as log:
            log.write(f"python {runner}.py {' '.join(argv)}\n")
            output = StageOutput(name, log, batch_size)
            process.stdin.write(json.dumps({"argv": argv}) + "\n")
            process.stdin.flush()
            answer = self._answer(runner, output)
        if not answer["ok"]:
            raise StageError(f"{name} failed: {answer['error']}; the end of {log_path}:\n" + "".join(output.tail))
        seconds = time.time() - start
        print(f"  {name}: done in {format_seconds(seconds)}", flush=True)
        return seconds

    def stop(self, runner):
        """Ends the runner's process (its memory back) once no more of its runs are due."""
        entry = self.processes.pop(runner, None)
        if entry:
            entry[0].stdin.close()
            entry[0].wait()

    def close(self):
        for runner in list(self.processes):
            process, _ = self.processes.pop(runner)
            process.kill()
            process.wait()
