"""The training engine every task runs on: the `Task` contract (`task.py`),
the custom `strategy.run` loop (`trainer.py`) and a whole fine-tuning job
(`fine_tuning.py`), optimizers and their update chain, precision, the state a
step carries, the run's flags and options, and a runner's answer to bad input.
It knows no task and no family: tasks import it, never the reverse."""
