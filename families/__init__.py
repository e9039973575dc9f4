"""Model families. Each lives in one home, `families/<name>/`, and registers
one record there (`<home>/family.py`, a `contracts.family.Family`) under its
name in `contracts.registry`. Shared code reaches a family only through the
registry, so it imports none of them."""
