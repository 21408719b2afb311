//! The sandbox target: Lodge's own local repository, spoken to over HTTP.

/// Client of a Lodge sandbox server.
pub struct SandboxTarget;
impl SandboxTarget {
    pub fn new(_rest: &str, _token: Option<String>) -> Result<Self, String> {
        Err("not yet".into())
    }
}
