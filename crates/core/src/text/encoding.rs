//! Text encodings: detecting a file's encoding, BOM and line endings, decoding it, and writing
//! text back so that every byte the edit did not touch stays as it was.
