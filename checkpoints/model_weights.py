"""Which of a model's variables a checkpoint holds: its weights, not the
state some models carry from one call to the next."""


def checkpointed_weights(model):
    """`model.weights` less the state it carries from call to call, which a
    model (or its `encoder`) declares as `state_variables` (a stateful ELMo
    encoder's LSTM states): no checkpoint holds state; loading leaves it as it
    is, and saving leaves it out."""
    state = {id(v) for owner in (model, getattr(model, "encoder", None))
             for v in getattr(owner, "state_variables", ())}
    return [v for v in model.weights if id(v) not in state]
