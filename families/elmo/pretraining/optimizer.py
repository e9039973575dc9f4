"""The original's optimizer: TF1's `AdagradOptimizer(learning_rate,
initial_accumulator_value=1.0)` (`w -= lr * g / sqrt(accumulator)`, no
epsilon, no schedule) on gradients clipped to the global norm
`all_clip_norm_val`, for the shared trainer (`training/trainer.py`), which takes
any config with `build(num_train_steps, aggregate_gradients)`."""

import dataclasses

import keras


@keras.saving.register_keras_serializable(package="bert_garden")
class OriginalAdagrad(keras.optimizers.Adagrad):
    """Keras's Adagrad with the trainer's gradient sum: `aggregate_gradients=False`
    for a caller that has summed the gradients over replicas already (the
    trainer does, so that clipping sees the whole batch's global norm)."""

    def __init__(self, aggregate_gradients=True, **kwargs):
        super().__init__(**kwargs)
        self.aggregate_gradients = aggregate_gradients

    def _all_reduce_sum_gradients(self, grads_and_vars):
        if self.aggregate_gradients:
            return super()._all_reduce_sum_gradients(grads_and_vars)
        return grads_and_vars

    def get_config(self):
        return {**super().get_config(), "aggregate_gradients": self.aggregate_gradients}


@dataclasses.dataclass(frozen=True)
class AdagradConfig:
    """The original's defaults (`train_elmo.py`): learning rate 0.2, clip 10."""

    learning_rate: float = 0.2
    clip_norm: float = 10.0

    def build(self, num_train_steps, aggregate_gradients=True):
        del num_train_steps  # a constant learning rate
        return OriginalAdagrad(learning_rate=self.learning_rate, initial_accumulator_value=1.0, epsilon=0.0,
                               global_clipnorm=self.clip_norm or None,
                               aggregate_gradients=aggregate_gradients, name="adagrad")
