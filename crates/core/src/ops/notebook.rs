//! Jupyter notebooks: a structured view of an .ipynb file and cell edits that change only the edited cell's bytes.
