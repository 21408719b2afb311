//! Communities: the site's collections a dataset asks to be included in (a project's, a
//! field's). InvenioRDM includes a published record in a community when the community's
//! curators accept a request, which Lodge makes after publishing (`POST
//! /api/records/{id}/communities`), for every community the dataset names.
//!
//! Each community is looked up before the draft is made, so a name the site does not know
//! refuses the deposit with nothing left behind. The requests are made on every attempt
//! that reaches a published record, until the deposit is recorded: the site keeps one open
//! request per work and community and answers a second with "already", which is taken as
//! done, so a retried attempt, another machine, or the next version of the record asks
//! nothing twice. A target that leaves drafts makes no request: a person publishes the
//! draft, and picks its communities there.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::InvenioTarget;
use crate::content::FieldProblem;
use crate::targets::Failure;

impl InvenioTarget {
    /// The site's id of each community of `names` (short names), in order; a
    /// [`Failure::Rejected`] naming each one the site does not have.
    pub(super) async fn community_ids(&self, names: &[String]) -> Result<Vec<String>, Failure> {
        let mut ids = Vec::with_capacity(names.len());
        let mut problems = Vec::new();
        for (i, name) in names.iter().enumerate() {
            if let Some(id) = self.community_id(name).await? {
                ids.push(id);
                continue;
            }
            let meant = match self.community_like(name).await {
                Some((slug, title)) => format!(" (did you mean '{slug}', {title}?)"),
                None => String::new(),
            };
            problems.push(FieldProblem {
                field: format!("communities[{i}]"),
                message: format!(
                    "{} has no community '{name}' this account can see{meant}: check its \
                     short name, the part after /communities/ in its address (--community \
                     NAME); if it is restricted, ask its owners to let you in; or remove it \
                     (--community \"\")",
                    self.site_name()
                ),
            });
        }
        match problems.is_empty() {
            true => Ok(ids),
            false => Err(Failure::Rejected {
                status: 0,
                problems,
            }),
        }
    }

    /// The id of community `name` on the site, `None` when it has none of that name that
    /// this account may see (a restricted community answers 403: that is about the
    /// community, not the token, so the target is not paused for it).
    async fn community_id(&self, name: &str) -> Result<Option<String>, Failure> {
        if let Some(known) = self.answered(|v| v.communities.get(name).cloned()) {
            return Ok(known);
        }
        let resp = self
            .send(
                Method::GET,
                self.url(&["api", "communities", name]),
                None,
                false,
            )
            .await?;
        let found = match resp.status() {
            StatusCode::OK => {
                let community = Self::json_of(resp, "community").await?;
                community["id"].as_str().map(str::to_string)
            }
            StatusCode::NOT_FOUND | StatusCode::FORBIDDEN => None,
            _ => return Err(Self::failure_of(resp).await),
        };
        self.remember(|v| v.communities.insert(name.to_string(), found.clone()));
        Ok(found)
    }

    /// The community a person most likely meant by `name`, which the site does not have:
    /// the site's search for the name's words, and of what it finds the short name closest
    /// to `name`, with its title. `None` when nothing found is near it, or the search
    /// fails: the refusal stands either way, this only helps fix it.
    async fn community_like(&self, name: &str) -> Option<(String, String)> {
        let words: Vec<&str> = name
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        if words.is_empty() {
            return None;
        }
        let mut url = self.url(&["api", "communities"]);
        url.query_pairs_mut()
            .append_pair("q", &words.join(" OR "))
            .append_pair("size", "25");
        let resp = self.send(Method::GET, url, None, false).await.ok()?;
        if resp.status() != StatusCode::OK {
            return None;
        }
        let found = Self::json_of(resp, "communities search").await.ok()?;
        let hits = found["hits"]["hits"].as_array()?;
        let slugs = || hits.iter().filter_map(|h| h["slug"].as_str());
        // A short name near it (a letter more, a letter less); else the one found whose
        // short name holds each of its words (`soil` for `soil-science`), when one alone
        // does.
        let holding: Vec<&str> = slugs()
            .filter(|slug| {
                let slug = slug.to_lowercase();
                words.iter().all(|w| slug.contains(&w.to_lowercase()))
            })
            .collect();
        let meant = crate::wording::closest(name, slugs(), 0.6)
            .or_else(|| (holding.len() == 1).then(|| holding[0]))?;
        let title = hits
            .iter()
            .find(|h| h["slug"] == meant)
            .and_then(|h| h["metadata"]["title"].as_str())
            .map(|t| format!("\"{t}\""))
            .unwrap_or_else(|| "untitled".into());
        Some((meant.to_string(), title))
    }

    /// Ask for published record `record` to be included in each community of `names`. A
    /// community that has the work already, or a request for it, is done; one the site
    /// refuses (or no longer has) fails the deposit with the site's reason, the record
    /// staying published (a retry asks again).
    pub(super) async fn request_inclusion(
        &self,
        record: &str,
        names: &[String],
    ) -> Result<(), Failure> {
        // (name, id) of each community the site has; the others are named as refused.
        let mut asked = Vec::with_capacity(names.len());
        let mut refused = Vec::new();
        for name in names {
            match self.community_id(name).await? {
                Some(id) => asked.push((name, id)),
                None => refused.push(format!("'{name}': the site has no such community")),
            }
        }
        if !asked.is_empty() {
            let ids: Vec<Value> = asked.iter().map(|(_, id)| json!({"id": id})).collect();
            let resp = self
                .send(
                    Method::POST,
                    self.url(&["api", "records", record, "communities"]),
                    Some(json!({"communities": ids}).to_string().into()),
                    true,
                )
                .await?;
            // InvenioRDM answers 400 when it asked none of them (each already asked, say),
            // with the reason for each in `errors` as when it asked some.
            let status = resp.status();
            if !(status.is_success() || status == StatusCode::BAD_REQUEST) {
                return Err(Self::failure_of(resp).await);
            }
            let text = resp.text().await.unwrap_or_default();
            let answer: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            // An answer that says what it asked and names no error: all asked.
            let errors = match (answer["errors"].as_array(), answer["processed"].is_array()) {
                (Some(errors), _) => errors.clone(),
                (None, processed) if processed || status.is_success() => Vec::new(),
                (None, _) => return Err(Failure::from_status(status.as_u16(), None, &text)),
            };
            for e in &errors {
                let message = e["message"].as_str().unwrap_or("refused");
                // Included already, or asked already: what this step is for.
                if message.to_lowercase().contains("already") {
                    continue;
                }
                let id = e["community"].as_str().unwrap_or_default();
                let name = asked
                    .iter()
                    .find(|(_, known)| known == id)
                    .map_or(id, |(name, _)| name.as_str());
                refused.push(format!("'{name}': {message}"));
            }
        }
        if refused.is_empty() {
            return Ok(());
        }
        Err(Failure::Conflict {
            message: format!(
                "record {record} is published, and {} would not ask {} to include it ({}): \
                 the record stays as it is; settle it with the community's curators, then \
                 retry the deposit to ask again",
                self.site_name(),
                if refused.len() == 1 {
                    "a community"
                } else {
                    "some communities"
                },
                refused.join("; ")
            ),
        })
    }
}
