//! `ocb1-aes` and `pmac-aes`.

use super::{KatError, Outcome, Vector};

pub fn ocb1(_v: &Vector) -> Result<Outcome, KatError> {
    Err(KatError::UnknownScheme(
        "ocb1-aes (not implemented yet)".into(),
    ))
}

pub fn pmac(_v: &Vector) -> Result<Outcome, KatError> {
    Err(KatError::UnknownScheme(
        "pmac-aes (not implemented yet)".into(),
    ))
}
