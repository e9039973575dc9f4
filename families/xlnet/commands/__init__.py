"""XLNet's parts of the data command lines at the repository root
(`data/family_commands.py`): one module per command, `define_flags`,
`REQUIRED` and `main`."""
