"""`assets.extra/tf_serving_warmup_requests`: requests TF Serving replays at load,
so the first real request does not pay for graph initialisation."""

import os

import tensorflow as tf
from tensorflow_serving.apis import model_pb2, predict_pb2, prediction_log_pb2

WARMUP_FILE = os.path.join("assets.extra", "tf_serving_warmup_requests")


def prediction_log(signature_name, inputs):
    """A `PredictionLog` holding one `PredictRequest` of `inputs` {name: array}."""
    request = predict_pb2.PredictRequest(
        model_spec=model_pb2.ModelSpec(signature_name=signature_name))
    for name, value in inputs.items():
        request.inputs[name].CopyFrom(tf.make_tensor_proto(value))
    return prediction_log_pb2.PredictionLog(
        predict_log=prediction_log_pb2.PredictLog(request=request))


def write_warmup_requests(saved_model_dir, requests):
    """Writes `requests` [(signature_name, {input: array})] as TFRecords of
    `PredictionLog` protos into the SavedModel directory."""
    path = os.path.join(saved_model_dir, WARMUP_FILE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with tf.io.TFRecordWriter(path) as writer:
        for signature_name, inputs in requests:
            writer.write(prediction_log(signature_name, inputs).SerializeToString())
    return path


def read_warmup_requests(saved_model_dir):
    """[(signature_name, {input: array})] back from a SavedModel's warmup file."""
    requests = []
    for record in tf.data.TFRecordDataset(os.path.join(saved_model_dir, WARMUP_FILE)):
        log = prediction_log_pb2.PredictionLog.FromString(record.numpy())
        request = log.predict_log.request
        requests.append((request.model_spec.signature_name,
                         {k: tf.make_ndarray(v) for k, v in request.inputs.items()}))
    return requests
