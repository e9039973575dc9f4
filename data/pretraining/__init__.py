"""Pretraining data: corpus reading, instances, masking, the offline TFRecord
writer, sequence packing and the tf.data input pipelines."""
