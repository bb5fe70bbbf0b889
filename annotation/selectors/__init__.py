"""Non-trivial reads."""
