//! Which git subcommands run which hook or configured program: a hook or key that no
//! subcommand of the line uses costs nothing (a `pre-commit` hook does not make `git add`
//! a program). Data, kept to what git's documentation says each one runs for; a key this
//! table does not name counts for every subcommand that is not a plain read.

/// Subcommands that write refs (a `reference-transaction` hook runs for each).
const REF_WRITERS: &[&str] = &[
    "commit",
    "merge",
    "pull",
    "fetch",
    "push",
    "branch",
    "tag",
    "checkout",
    "switch",
    "reset",
    "rebase",
    "cherry-pick",
    "revert",
    "stash",
    "update-ref",
    "remote",
    "replace",
    "notes",
    "am",
    "worktree",
    "clone",
    "gc",
    "pack-refs",
    "symbolic-ref",
    "bisect",
    "filter-branch",
    "reflog",
    "submodule",
    "refs",
];

/// Subcommands that write the index (a `post-index-change` hook runs for each).
const INDEX_WRITERS: &[&str] = &[
    "add",
    "rm",
    "mv",
    "status",
    "reset",
    "checkout",
    "switch",
    "restore",
    "stash",
    "commit",
    "merge",
    "pull",
    "rebase",
    "cherry-pick",
    "revert",
    "apply",
    "update-index",
    "read-tree",
    "am",
    "sparse-checkout",
    "submodule",
];

/// Subcommands that make commits (`pre-commit`, `prepare-commit-msg`, `commit-msg`,
/// `post-commit`) or run `gc --auto` (`pre-auto-gc`).
const COMMITTERS: &[&str] = &[
    "commit",
    "merge",
    "pull",
    "cherry-pick",
    "revert",
    "rebase",
    "am",
    "fetch",
];

/// Subcommands that talk to a remote (ssh, proxies, credential helpers, transports).
const REMOTES: &[&str] = &[
    "fetch",
    "pull",
    "push",
    "clone",
    "ls-remote",
    "remote",
    "submodule",
    "archive",
];

/// Subcommands that check out a tree (`post-checkout`).
const CHECKOUTS: &[&str] = &[
    "checkout",
    "switch",
    "clone",
    "worktree",
    "rebase",
    "bisect",
    "pull",
    "submodule",
];

/// The subcommands hook `name` runs for; `None`: every subcommand that is not a plain read.
pub(super) fn hook_runs_for(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "reference-transaction" => REF_WRITERS,
        "post-index-change" => INDEX_WRITERS,
        "pre-commit" | "prepare-commit-msg" | "commit-msg" | "post-commit" | "pre-auto-gc" => {
            COMMITTERS
        }
        "pre-merge-commit" | "post-merge" => &["merge", "pull"],
        "pre-rebase" => &["rebase", "pull"],
        "post-rewrite" => &["commit", "rebase", "pull", "am"],
        "post-checkout" => CHECKOUTS,
        "pre-push" => &["push"],
        "applypatch-msg" | "pre-applypatch" | "post-applypatch" => &["am"],
        "sendemail-validate" => &["send-email"],
        // Run by the receiving repository: a push into it, or a fetch from it.
        "pre-receive" | "update" | "proc-receive" | "post-receive" | "post-update"
        | "push-to-checkout" => &["push", "fetch", "pull", "clone"],
        _ => return None,
    })
}

/// The subcommands configuration key `key` (lower-cased) runs a program for; `None`: every
/// subcommand that is not a plain read.
pub(super) fn key_runs_for(key: &str) -> Option<&'static [&'static str]> {
    let section = key.split('.').next().unwrap_or(key);
    let last = key.rsplit('.').next().unwrap_or(key);
    Some(match (section, last) {
        ("core" | "sequence", "editor") => &[
            "commit",
            "merge",
            "pull",
            "rebase",
            "tag",
            "am",
            "notes",
            "revert",
            "cherry-pick",
            "config",
            "var",
            "stash",
            "add",
            "branch",
        ],
        ("core", "sshcommand" | "gitproxy" | "askpass" | "alternaterefscommand")
        | ("remote", "uploadpack" | "receivepack" | "url" | "pushurl")
        | ("credential" | "url" | "protocol" | "uploadpack", _) => REMOTES,
        ("merge", "tool") | ("mergetool", _) => &["mergetool"],
        ("diff", "guitool") | ("difftool", _) => &["difftool"],
        ("merge", "driver") => &[
            "merge",
            "pull",
            "rebase",
            "cherry-pick",
            "revert",
            "stash",
            "checkout",
            "am",
        ],
        ("web" | "browser" | "man" | "help" | "instaweb", _) => {
            &["help", "instaweb", "web--browse"]
        }
        ("sendemail", _) => &["send-email"],
        ("tar", _) => &["archive"],
        ("submodule", _) => &["submodule"],
        ("trailer", _) => &[
            "commit",
            "interpret-trailers",
            "merge",
            "rebase",
            "am",
            "tag",
        ],
        ("interactive", _) => &["add", "checkout", "reset", "stash", "restore", "commit"],
        _ => return None,
    })
}
