"""A checkpoint layout a family reads: what `checkpoints.loader` asks of each
family's formats (its record lists them as `checkpoint_formats`)."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class CheckpointFormat:
    """`name` is what `detect_format` answers and messages name.

    `detect(path, tf_names)` says whether `path` is in this layout; `tf_names`
    are the variable names when `path` is a TensorFlow checkpoint, else None.
    `read(path, model)` gives ({source key: array}, locate), `locate` mapping
    one of our variable paths to (source key, stored transposed) or None.
    A `directory` layout is a folder of files of its own (Hugging Face,
    keras-hub), tried before our own weight folders; a TensorFlow layout that
    `by_structure` alone recognises (the Model Garden's object graph) is tried
    after our trainer checkpoints, whose object graphs hold the same shapes.
    """

    name: str
    detect: object
    read: object
    directory: bool = False
    by_structure: bool = False
