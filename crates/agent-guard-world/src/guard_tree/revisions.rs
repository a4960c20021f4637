//! The revisions of a [`TreeSource`] as git resolves them: one commit, a range walked as
//! git walks it, a name `checkout` guesses is a remote branch, a pull's upstream.

use agent_guard_types::TreeSource;
use git2::{ObjectType, Oid, Repository};

use super::{Resolve, Unknown};

/// The most commits of a range (`git cherry-pick A..B`) whose changes are read.
const MAX_COMMITS: usize = 10_000;

/// The commits a [`TreePart::Change`](agent_guard_types::TreePart::Change) source names: one, or a range walked as git walks it
/// (`A..B`, `A...B`, `^A B`).
pub(super) fn commits(repo: &Repository, source: &TreeSource) -> Result<Vec<Oid>, Resolve> {
    let text = rev_text(source)?;
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() == 1 && !text.contains("..") && !text.starts_with('^') {
        return Ok(vec![resolve(repo, source)?.peel_to_commit()?.id()]);
    }
    let mut walk = repo.revwalk()?;
    for word in words {
        let missing = |_| Resolve::Missing(format!("`{word}` does not resolve"));
        if let Some(hidden) = word.strip_prefix('^') {
            walk.hide(
                repo.revparse_single(hidden)
                    .map_err(missing)?
                    .peel_to_commit()?
                    .id(),
            )?;
            continue;
        }
        let spec = repo.revparse(word).map_err(missing)?;
        let head = || -> Result<Oid, Resolve> { Ok(repo.head()?.peel_to_commit()?.id()) };
        let from = spec.from().map(|o| o.peel_to_commit().map(|c| c.id()));
        let to = spec.to().map(|o| o.peel_to_commit().map(|c| c.id()));
        let from = from.transpose()?;
        let to = to.transpose()?;
        if spec.mode().is_range() {
            walk.hide(from.map_or_else(head, Ok)?)?;
            walk.push(to.map_or_else(head, Ok)?)?;
        } else if spec.mode().is_merge_base() {
            let (a, b) = (from.map_or_else(head, Ok)?, to.map_or_else(head, Ok)?);
            walk.push(a)?;
            walk.push(b)?;
            if let Ok(base) = repo.merge_base(a, b) {
                walk.hide(base)?;
            }
        } else if let Some(one) = from {
            walk.push(one)?;
        }
    }
    let mut found = Vec::new();
    for oid in walk {
        if found.len() >= MAX_COMMITS {
            return Err(Resolve::Unknown(Unknown(format!(
                "the range has more than {MAX_COMMITS} commits"
            ))));
        }
        found.push(oid?);
    }
    Ok(found)
}

/// The source's revision as text.
fn rev_text(source: &TreeSource) -> Result<&str, Resolve> {
    let rev = source
        .rev
        .as_ref()
        .ok_or_else(|| Resolve::Unknown(Unknown("no revision".to_owned())))?;
    if rev.opaque.is_some() {
        return Err(Resolve::Unknown(Unknown(
            "the revision is not literal".to_owned(),
        )));
    }
    Ok(&rev.text)
}

/// Resolves the source's revision as git would: as written, then (for a name `checkout`
/// and `switch` may guess) as the one remote branch of that name. A pull's upstream that
/// is not configured fails in git.
pub(super) fn resolve<'r>(
    repo: &'r Repository,
    source: &TreeSource,
) -> Result<git2::Object<'r>, Resolve> {
    let text = rev_text(source)?;
    if let Ok(object) = repo.revparse_single(text) {
        return Ok(object);
    }
    if source.guess && !text.contains(['@', '^', '~', ':', '.']) {
        let mut remote = repo
            .references_glob(&format!("refs/remotes/*/{text}"))?
            .filter_map(Result::ok);
        if let (Some(only), None) = (remote.next(), remote.next()) {
            return Ok(only.peel(ObjectType::Any)?);
        }
    }
    if source.fetched && is_upstream(text) && !has_upstream(repo) {
        return Err(Resolve::Fails);
    }
    Err(Resolve::Missing(format!("`{text}` does not resolve")))
}

/// `@{u}` and its spellings.
fn is_upstream(text: &str) -> bool {
    matches!(
        text,
        "@{u}" | "@{upstream}" | "HEAD@{u}" | "HEAD@{upstream}"
    )
}

/// Whether the current branch has an upstream configured (git pull fails without one).
fn has_upstream(repo: &Repository) -> bool {
    repo.head()
        .ok()
        .and_then(|head| head.name().map(str::to_owned))
        .is_some_and(|name| repo.branch_upstream_name(&name).is_ok())
}

/// Whether a plain `git pull` rebases here (`branch.<name>.rebase`, else `pull.rebase`).
pub(super) fn pull_rebases(repo: &Repository) -> bool {
    let Ok(config) = repo.config() else {
        return false;
    };
    let branch = repo
        .head()
        .ok()
        .and_then(|head| head.shorthand().map(str::to_owned));
    let value = branch
        .and_then(|name| config.get_string(&format!("branch.{name}.rebase")).ok())
        .or_else(|| config.get_string("pull.rebase").ok());
    value.is_some_and(|v| {
        !matches!(
            v.to_ascii_lowercase().as_str(),
            "false" | "no" | "off" | "0"
        )
    })
}
