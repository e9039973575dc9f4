"""The comparison's side of `comparisons.worker`: one process per runner,
started when first needed, each request's output written to its own log with
the trainer's progress shown (`demo.progress.StageOutput`).

With `slots` above one, that many runs go at once, each in a process of its
own limited to its share of the cores: fine-tuning runs of these small models
spend their time in many small ops, which one thread serves about as fast as
two, so two runs side by side on two cores finish about 1.5x sooner than one
after the other (the same two side by side with every thread each: 0.9x)."""

import concurrent.futures
import json
import os
import queue
import subprocess
import sys
import threading
import time

from comparisons.worker import MARK
from demo.progress import StageError, StageOutput, format_seconds, read_lines
from demo.threads import shared_out


class Workers:
    """Runs runner command lines in long-lived processes (`eager`: the runners
    whose `tf.function`s run eagerly).

    Example:
    >>> with Workers(root, env) as workers:
    ...     seconds = workers.run("run_classifier", ["--task_name=SST-2", ...], "logs/sst.log", "SST-2")
    """

    def __init__(self, root, env, eager=(), slots=1):
        self.root, self.eager, self.slots = root, eager, slots
        self.env = env if slots == 1 else {**env, **shared_out(slots)}
        self.processes = {}  # (runner, slot) -> (Popen, line queue)
        self.free = queue.Queue()
        for slot in range(slots):
            self.free.put(slot)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def _process(self, key):
        if key not in self.processes:
            runner = key[0]
            eager = ["--eager"] if runner in self.eager else []
            command = [sys.executable, "-m", "comparisons.worker", runner, *eager]
            process = subprocess.Popen(command, cwd=self.root, env=self.env, text=True, stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            lines = queue.Queue()
            threading.Thread(target=read_lines, args=(process.stdout, lines.put), daemon=True).start()
            self.processes[key] = (process, lines)
            with open(os.devnull, "w", encoding="utf-8") as quiet:
                self._answer(key, StageOutput(f"{runner} starting", quiet))
        return self.processes[key]

    def _answer(self, key, output):
        """The worker's answer to its last request, its other lines handled by `output`."""
        process, lines = self.processes[key]
        end = output.follow(lines, lambda line: line.startswith(MARK))
        if end is None:
            self.processes.pop(key)
            raise StageError(f"the {key[0]} worker ended (exit {process.wait()}); the end of its output:\n"
                             + "".join(output.tail))
        return json.loads(end[len(MARK):])

    def run(self, runner, argv, log_path, name, batch_size=None):
        """Runs `python <runner>.py argv...` in a process of the runner's on a
        free slot, its output in `log_path`; returns the wall seconds. Raises
        StageError on failure."""
        slot = self.free.get()
        try:
            return self._run((runner, slot), argv, log_path, name, batch_size)
        finally:
            self.free.put(slot)

    def _run(self, key, argv, log_path, name, batch_size):
        start = time.time()
        process, _ = self._process(key)
        os.makedirs(os.path.dirname(log_path), exist_ok=True)
        with open(log_path, "w", encoding="utf-8") as log:
            log.write(f"python {key[0]}.py {' '.join(argv)}\n")
            output = StageOutput(name, log, batch_size)
            process.stdin.write(json.dumps({"argv": argv}) + "\n")
            process.stdin.flush()
            answer = self._answer(key, output)
        if not answer["ok"]:
            raise StageError(f"{name} failed: {answer['error']}; the end of {log_path}:\n" + "".join(output.tail))
        seconds = time.time() - start
        print(f"  {name}: done in {format_seconds(seconds)}", flush=True)
        return seconds

    def run_all(self, calls):
        """Calls each of `calls` (functions of no arguments that `run`), `slots`
        at a time, in order. The first error stops those not started and is
        raised; `close` then ends the runs under way."""
        if self.slots == 1:
            for call in calls:
                call()
            return
        failed = threading.Event()

        def guarded(call):
            if failed.is_set():
                return
            try:
                call()
            except BaseException:
                failed.set()
                raise

        pool = concurrent.futures.ThreadPoolExecutor(self.slots)
        futures = [pool.submit(guarded, call) for call in calls]
        try:
            done, _ = concurrent.futures.wait(futures, return_when=concurrent.futures.FIRST_EXCEPTION)
            for future in futures:
                if future in done and future.exception() is not None:
                    raise future.exception()
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def stop(self, runner):
        """Ends the runner's processes (their memory back) once no more of its runs are due."""
        for key in [k for k in self.processes if k[0] == runner]:
            process, _ = self.processes.pop(key)
            process.stdin.close()
            process.wait()

    def close(self):
        for key in list(self.processes):
            process, _ = self.processes.pop(key)
            process.kill()
            process.wait()
