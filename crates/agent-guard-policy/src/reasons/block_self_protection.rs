//! `BLOCK_SELF_PROTECTION`.

use std::path::{Path, PathBuf};

use agent_guard_types::{
    GuardFileState, ListedWrites, OpKind, OpSpec, PathSpec, Protected, ReasonCode, Target, Verdict,
    World,
};

use crate::PolicyContext;

super::reason!(
    BlockSelfProtection, BlockSelfProtection, "BLOCK_SELF_PROTECTION",
    catches: "Any command or edit-tool call that would change a file that keeps the guard on: the guard's configuration (`.agent-guard.toml`, `~/.config/agent-guard/`, `/etc/agent-guard/`, its state under `~/.local/state/agent-guard/`) and the hook configuration of every supported harness, in the workspace and in the user's directories (`.claude/settings.json`, `.claude/settings.local.json`, `.codex/hooks.json`, `.codex/config.toml`, `.gemini/settings.json`, `.github/hooks/`, `.cursor/hooks.json`, `.clinerules/hooks/`, `.windsurf/hooks.json`, `.qwen/settings.json`, `.opencode/plugins/`, `opencode.json`, and their user-level counterparts, following `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `GEMINI_CLI_HOME`, `QWEN_HOME`, `COPILOT_HOME`, `XDG_CONFIG_HOME` and `XDG_STATE_HOME`). Every effect counts — delete, overwrite, create, append, move from or onto, link, permission or attribute change (`chmod`, `chown`, `touch`, `attrib`, `icacls`), an edit tool's write — in every dialect, reached directly, through a symlink, by a wildcard that could match one, or through a directory that holds one (`rm -rf .claude`, `mv .github gh`) or does not exist yet (`cp -r evil .claude`). Also a git command that writes another commit into the work tree whose hook files differ from the work tree's commit (`git checkout evil` where `evil` commits a `.claude/settings.local.json` with `disableAllHooks`; `switch`, `merge`, `pull`, `rebase`, `cherry-pick`, `revert`, `stash apply|pop`, `reset`, `restore --source`, `rm`, `read-tree -u`), or a commit the guard cannot read (a revision that is not literal, a pull's commit not fetched yet) in a repository whose commits hold a hook file. Also any line that runs one of the guard's person-only verbs — `approve`, `mode normal`, `config trust`, `uninstall`, `gc --execute` — by name or path, inside a pseudo-terminal wrapper (`script -qc 'agent-guard approve ID' /dev/null`, `unbuffer`, `expect`), an interpreter (`python -c 'import pty; …'`) or a detached process (`nohup`, `setsid`); the verbs themselves also refuse to run under a harness. Also any line that copies, links or moves the guard's binary (`cp ~/.cargo/bin/agent-guard x`), or names a copy of it under another name that is already there (`./x mode normal`, found by identity: the same file or the same bytes).",
    why: "An agent that can rewrite these, or approve its own requests, can switch the guard off (`disableAllHooks`, a hook list without agent-guard, a config that names a quarantine elsewhere or calls real data an artifact, a RESTRICTED session lifted) and then do anything else unguarded. Only a person does these.",
    example: "echo '{\"disableAllHooks\": true}' > .claude/settings.local.json",
    verdict: "BLOCK, never askable; judged before every other rule of the op.",
    recovery: "Nothing was changed. A person does it in their own terminal: `agent-guard install <harness>` or `agent-guard uninstall <harness>` for hooks, an editor and `agent-guard config trust` for the configuration, `agent-guard approve ID` for a waiting request.",
    enforcement: None,
    hint: "This keeps agent-guard on, so an agent may not do it. Ask the user to do it themselves in their own terminal (hooks: `agent-guard install <harness>` or `uninstall <harness>`; settings: edit the file, then `agent-guard config trust`; a waiting request: `agent-guard approve ID`).",
    coverage: Coverage::Corpus,
);

/// Returns `true` if any spec is a guard file (or a directory holding or able to hold one).
pub(crate) fn applies(specs: &[PathSpec]) -> bool {
    specs
        .iter()
        .any(|s| s.protected == Some(Protected::GuardControl))
}

/// The verdict when `op` names a guard file among the paths it changes (its targets, and a
/// move's sources), naming the file. After literal directory changes in the line the
/// targets are resolved from where the line is then as well as from where it starts.
pub(crate) fn verdict(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Option<Verdict> {
    let spec = guarded(op, ctx, world)?;
    let mut verdict = Verdict::of(ReasonCode::BlockSelfProtection);
    let shown = spec
        .physical
        .as_deref()
        .map_or_else(|| spec.raw.clone(), |path| path.display().to_string());
    verdict.reasons.push(format!(
        "{shown} keeps agent-guard on (the guard's or a harness's hook configuration): only a \
         person changes it, in their own terminal — `agent-guard install <harness>` or \
         `agent-guard uninstall <harness>` for hooks, an editor for the settings"
    ));
    Some(verdict)
}

/// The first guard file `op` would change, if any.
fn guarded(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Option<PathSpec> {
    if let Some(listed) = &op.listed_writes
        && let Some(spec) = listed_guard_file(listed, op, ctx, world)
    {
        return Some(spec);
    }
    if !matches!(
        op.kind,
        OpKind::FsDelete
            | OpKind::Overwrite
            | OpKind::Append
            | OpKind::Metadata
            | OpKind::SideEffectDelete
            | OpKind::EditTool
            | OpKind::Move
            | OpKind::GitDiscard
    ) {
        return None;
    }
    let mut bases = vec![ctx.cwd.clone()];
    if let Some(base) = after_cd(op, ctx, world) {
        bases.push(base);
    }
    // What the op only removes counts when it is there: `rm -rf .github` where there is
    // none destroys nothing (a write or a move's destination creates, so it always counts).
    let removes = matches!(op.kind, OpKind::FsDelete | OpKind::SideEffectDelete);
    let named: Vec<(&Target, bool)> = op
        .targets
        .iter()
        .map(|t| (t, removes))
        .chain(op.sources.iter().map(|t| (t, true)))
        .filter(|(t, _)| t.opaque.is_none())
        .collect();
    bases.iter().find_map(|base| {
        named
            .iter()
            .map(|(t, removes)| (world.path(t, base), *removes))
            .filter(|(spec, removes)| !removes || spec.glob || spec.exists())
            .map(|(spec, _)| spec)
            .find(|spec| applies(std::slice::from_ref(spec)))
    })
}

/// The first guard file among the paths a patch or an archive names (`git apply evil.diff`,
/// `tar xf hooks.tar`), read by the world. A patch strips any number of leading components
/// (`-pN`, git's `a/` and `b/`), so every tail of each name counts; so does every directory
/// the op writes into (`-C`, `-d`, `--directory`), from where the line is at that point.
fn listed_guard_file(
    listed: &ListedWrites,
    op: &OpSpec,
    ctx: &PolicyContext,
    world: &dyn World,
) -> Option<PathSpec> {
    let base = after_cd(op, ctx, world).unwrap_or_else(|| ctx.cwd.clone());
    let into = match &listed.into {
        Some(dir) if dir.opaque.is_none() => {
            let spec = world.path(dir, &base);
            spec.physical
                .or(spec.resolved)
                .unwrap_or_else(|| base.clone())
        }
        _ => base.clone(),
    };
    // `patch -d DIR -i FILE` reads FILE in DIR; `git apply --directory` and `tar -f` here.
    let names = world
        .listed_paths(listed, &base)
        .or_else(|| world.listed_paths(listed, &into))?;
    names.iter().find_map(|name| {
        let parts: Vec<&str> = name
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        (0..parts.len()).find_map(|skip| {
            let target = Target {
                text: parts[skip..].join("/"),
                ..Target::default()
            };
            let spec = world.path(&target, &into);
            applies(std::slice::from_ref(&spec)).then_some(spec)
        })
    })
}

/// The verdict when a git command that rewrites the work tree would change a guard file:
/// a reset, a discard or a stash over a modified one (the committed version comes back,
/// without the person's hook), `git clean` over an untracked one (or an ignored one with
/// `-x`/`-X`). Pathspecs narrow what a discard or a clean reaches.
pub(crate) fn git_verdict(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Option<Verdict> {
    let wanted: &[GuardFileState] = match op.kind {
        OpKind::GitClean if op.dry_run => return None,
        OpKind::GitClean if op.extra_flags.iter().any(|f| f == "-x") => {
            &[GuardFileState::Untracked, GuardFileState::Ignored]
        }
        OpKind::GitClean if op.extra_flags.iter().any(|f| f == "-X") => &[GuardFileState::Ignored],
        OpKind::GitClean => &[GuardFileState::Untracked],
        OpKind::GitResetHard | OpKind::GitDiscard | OpKind::GitStashPush => {
            &[GuardFileState::Modified]
        }
        _ => return None,
    };
    let (file, _) = world
        .guard_files_in_git()
        .into_iter()
        .filter(|(_, state)| wanted.contains(state))
        .find(|(file, _)| reaches(op, file, ctx, world))?;
    let mut verdict = Verdict::of(ReasonCode::BlockSelfProtection);
    verdict.reasons.push(format!(
        "{} keeps agent-guard on and has changes git would undo or remove; a person commits \
         or moves it first, or runs the command themselves",
        file.display()
    ));
    Some(verdict)
}

/// Whether the git op's pathspecs reach `file` (a hard reset and an op without pathspecs
/// reach the whole work tree; a pathspec the guard cannot place reaches anything).
fn reaches(op: &OpSpec, file: &Path, ctx: &PolicyContext, world: &dyn World) -> bool {
    if op.kind == OpKind::GitResetHard || op.targets.is_empty() {
        return true;
    }
    op.targets.iter().any(|target| {
        target.opaque.is_some()
            || target.glob
            || world
                .path(target, &ctx.cwd)
                .physical
                .as_deref()
                .is_none_or(|spec| file.starts_with(spec))
    })
}

/// Where the op runs after the line's directory changes, when every one is literal.
fn after_cd(op: &OpSpec, ctx: &PolicyContext, world: &dyn World) -> Option<PathBuf> {
    if op.cd.is_empty() {
        return None;
    }
    let mut base = ctx.cwd.clone();
    for change in &op.cd {
        let spec = world.path(change.as_ref()?, &base);
        base = spec.physical.or(spec.resolved)?;
    }
    Some(base)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{file, protected};

    #[test]
    fn guard_files_apply() {
        assert!(applies(&[
            file("a"),
            protected(file(".claude/settings.json"), Protected::GuardControl)
        ]));
        assert!(!applies(&[
            file("a"),
            protected(file(".git/config"), Protected::GitMetadata)
        ]));
    }
}
