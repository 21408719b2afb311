//! `lodge target test`: what a target's self-check found, check by check, so the user is told
//! which one failed (reachability, credentials, conditional writes) and what to do.

/// One check and how it went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// "reachable", "credentials", "conditional write", ...
    pub name: String,
    pub outcome: Outcome,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Passed(String),
    Failed(String),
    /// Not run because an earlier check failed, or the target cannot check it.
    Skipped(String),
}

/// Every check of one target, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProbeReport {
    pub checks: Vec<Check>,
}

impl ProbeReport {
    pub fn pass(&mut self, name: &str, message: impl Into<String>) {
        self.push(name, Outcome::Passed(message.into()));
    }

    pub fn fail(&mut self, name: &str, message: impl Into<String>) {
        self.push(name, Outcome::Failed(message.into()));
    }

    pub fn skip(&mut self, name: &str, message: impl Into<String>) {
        self.push(name, Outcome::Skipped(message.into()));
    }

    fn push(&mut self, name: &str, outcome: Outcome) {
        self.checks.push(Check {
            name: name.into(),
            outcome,
        });
    }

    /// True when no check failed and none was skipped.
    pub fn ok(&self) -> bool {
        self.checks
            .iter()
            .all(|c| matches!(c.outcome, Outcome::Passed(_)))
    }

    /// Whether what failed is only the server being busy (429, 503: [`Failure::Wait`]'s
    /// words): nothing to fix, only to test again in a moment.
    ///
    /// [`Failure::Wait`]: super::Failure::Wait
    pub fn only_busy(&self) -> bool {
        let mut failed = self.checks.iter().filter_map(|c| match &c.outcome {
            Outcome::Failed(text) => Some(text),
            _ => None,
        });
        failed
            .next()
            .is_some_and(|t| t.contains("server busy (HTTP "))
            && failed.all(|t| t.contains("server busy (HTTP "))
    }

    /// Add `more` to the words of check `name` when it failed: what the target knows of
    /// its own cause (DataCite's 401 is the repository id's or its password's).
    pub fn amend_failure(&mut self, name: &str, more: &str) {
        for check in self.checks.iter_mut().filter(|c| c.name == name) {
            if let Outcome::Failed(text) = &mut check.outcome {
                text.push_str(more);
            }
        }
    }

    /// The first failed check, if any.
    pub fn first_failure(&self) -> Option<&Check> {
        self.checks
            .iter()
            .find(|c| matches!(c.outcome, Outcome::Failed(_)))
    }
}
