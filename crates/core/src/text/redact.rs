//! Credential redaction: well-known token formats and long high-entropy strings replaced before text reaches a model.
