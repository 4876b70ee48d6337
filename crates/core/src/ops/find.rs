//! Finding files and lines for the coder profile's search: a walk of the jail with noise and secret filters, and per-line matches with context.
