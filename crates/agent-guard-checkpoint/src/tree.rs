//! Checkpoint trees: built from the sorted list of kept files, rebuilding only the
//! directories whose content changed; and read back into that list.

use std::collections::{HashMap, HashSet};

use git2::{ObjectType, Oid, Repository, Tree};

use super::pack::NewObjects;

use super::stat_cache::path_order;

const MODE_TREE: u32 = 0o040_000;

/// One kept file of a checkpoint: its path, git mode and blob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Leaf {
    /// Workspace-relative, `/`-separated.
    pub(crate) path: Vec<u8>,
    /// `100644`, `100755` or `120000`.
    pub(crate) mode: u32,
    /// The blob.
    pub(crate) id: Oid,
}

/// A kept file as the tree builder sees it, borrowed from an index entry or a [`Leaf`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LeafRef<'a> {
    /// Workspace-relative, `/`-separated.
    pub(crate) path: &'a [u8],
    /// `100644`, `100755` or `120000`.
    pub(crate) mode: u32,
    /// The blob.
    pub(crate) id: Oid,
}

#[cfg(test)]
impl Leaf {
    /// This leaf, borrowed.
    pub(crate) fn as_ref(&self) -> LeafRef<'_> {
        LeafRef {
            path: &self.path,
            mode: self.mode,
            id: self.id,
        }
    }
}

/// The directories holding `paths` (and their ancestors, the root `""` included): what
/// must be rebuilt when those paths were added, removed or changed.
#[cfg(test)]
pub(crate) fn dirs_above<'p>(paths: impl IntoIterator<Item = &'p [u8]>) -> HashSet<Vec<u8>> {
    let mut dirty = HashSet::new();
    for path in paths {
        mark_dirty(&mut dirty, path);
    }
    dirty
}

/// Adds to `dirty` the directories holding `path` and their ancestors (the root `""`
/// included), stopping at the first one already there: its ancestors are too.
pub(crate) fn mark_dirty(dirty: &mut HashSet<Vec<u8>>, path: &[u8]) {
    let mut end = path.len();
    while let Some(slash) = path[..end].iter().rposition(|b| *b == b'/') {
        if !dirty.insert(path[..slash].to_vec()) {
            return;
        }
        end = slash;
    }
    dirty.insert(Vec::new());
}

/// The directories whose leaves differ between two leaf lists sorted in [`path_order`]
/// (the oracle of the checkpoint's own bookkeeping).
#[cfg(test)]
pub(crate) fn dirty_dirs<'a, 'b>(
    old: impl IntoIterator<Item = LeafRef<'a>>,
    new: impl IntoIterator<Item = LeafRef<'b>>,
) -> HashSet<Vec<u8>> {
    let mut changed: Vec<Vec<u8>> = Vec::new();
    let mut old = old.into_iter().peekable();
    let mut new = new.into_iter().peekable();
    loop {
        let order = match (old.peek(), new.peek()) {
            (Some(a), Some(b)) if a.path == b.path => std::cmp::Ordering::Equal,
            (Some(a), Some(b)) => path_order(a.path, b.path),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => break,
        };
        match order {
            std::cmp::Ordering::Less => changed.extend(old.next().map(|a| a.path.to_vec())),
            std::cmp::Ordering::Greater => changed.extend(new.next().map(|b| b.path.to_vec())),
            std::cmp::Ordering::Equal => {
                if let (Some(a), Some(b)) = (old.next(), new.next())
                    && (a.mode != b.mode || a.id != b.id)
                {
                    changed.push(b.path.to_vec());
                }
            }
        }
    }
    dirs_above(changed.iter().map(Vec::as_slice))
}

/// Builds the tree of `leaves` (sorted in [`path_order`]) in `repo`.
pub(crate) struct Builder<'a> {
    /// Where the new trees go.
    pub(crate) new: &'a mut NewObjects,
    /// Directories that must be rebuilt.
    pub(crate) dirty: &'a HashSet<Vec<u8>>,
    /// The previous checkpoint's directory trees.
    pub(crate) cache: &'a HashMap<Vec<u8>, Oid>,
    /// Directories built now.
    pub(crate) built: Vec<(Vec<u8>, Oid)>,
}

impl Builder<'_> {
    /// The tree of directory `dir` holding `leaves` (all below it).
    pub(crate) fn build(&mut self, dir: &[u8], leaves: &[LeafRef<'_>]) -> Oid {
        if !self.dirty.contains(dir)
            && let Some(id) = self.cache.get(dir)
        {
            return *id;
        }
        let strip = if dir.is_empty() { 0 } else { dir.len() + 1 };
        let mut entries: Vec<(&[u8], u32, Oid)> = Vec::new();
        let mut at = 0;
        while let Some(leaf) = leaves.get(at) {
            let rest = &leaf.path[strip..];
            let Some(slash) = rest.iter().position(|b| *b == b'/') else {
                entries.push((rest, leaf.mode, leaf.id));
                at += 1;
                continue;
            };
            let name = &rest[..slash];
            let mut end = at + 1;
            while leaves.get(end).is_some_and(|next| {
                let rest = &next.path[strip..];
                rest.len() > slash && rest[..slash] == *name && rest[slash] == b'/'
            }) {
                end += 1;
            }
            let mut sub = dir.to_vec();
            if !sub.is_empty() {
                sub.push(b'/');
            }
            sub.extend_from_slice(name);
            let id = self.build(&sub, &leaves[at..end]);
            entries.push((name, MODE_TREE, id));
            at = end;
        }
        let id = self
            .new
            .add_unchecked(ObjectType::Tree, serialize(&mut entries));
        self.built.push((dir.to_vec(), id));
        id
    }
}

/// A tree object's content, in git's format and order: per entry the octal mode, a space,
/// the name, a NUL and the raw object id, sorted by name with a tree's name compared as if
/// it ended in `/`.
///
/// Written directly rather than through libgit2's tree builder, which checks that every
/// entry's object exists and reads its type: one `access` and one `open` per entry of every
/// rebuilt directory, which made a checkpoint of 100 changed files in 100 directories read
/// 10,000 objects. Every id here was just written or comes from the previous checkpoint.
pub(crate) fn serialize(entries: &mut [(&[u8], u32, Oid)]) -> Vec<u8> {
    // A tree's name compares as if it ended in `/` (no allocation per entry).
    fn key(name: &[u8], mode: u32) -> impl Iterator<Item = u8> + '_ {
        let slash: &[u8] = if mode == MODE_TREE { b"/" } else { b"" };
        name.iter().chain(slash).copied()
    }
    entries.sort_unstable_by(|(a, am, _), (b, bm, _)| key(a, *am).cmp(key(b, *bm)));
    let mut out = Vec::with_capacity(entries.len() * 48);
    for (name, mode, id) in entries.iter() {
        let mut octal = [0u8; 11];
        let mut at = octal.len();
        let mut rest = *mode;
        loop {
            at -= 1;
            octal[at] = b'0' + (rest & 7) as u8;
            rest >>= 3;
            if rest == 0 {
                break;
            }
        }
        out.extend_from_slice(&octal[at..]);
        out.push(b' ');
        out.extend_from_slice(name);
        out.push(0);
        out.extend_from_slice(id.as_bytes());
    }
    out
}

/// Every blob of `tree`, recursively, sorted in [`path_order`]. Submodule entries (which a
/// checkpoint never writes) are skipped.
pub(crate) fn leaves(repo: &Repository, tree: &Tree<'_>) -> Result<Vec<Leaf>, git2::Error> {
    let mut out = Vec::new();
    collect(repo, tree, &mut Vec::new(), &mut out)?;
    out.sort_unstable_by(|a, b| path_order(&a.path, &b.path));
    Ok(out)
}

fn collect(
    repo: &Repository,
    tree: &Tree<'_>,
    prefix: &mut Vec<u8>,
    out: &mut Vec<Leaf>,
) -> Result<(), git2::Error> {
    for entry in tree {
        let start = prefix.len();
        if !prefix.is_empty() {
            prefix.push(b'/');
        }
        prefix.extend_from_slice(entry.name_bytes());
        match entry.kind() {
            Some(ObjectType::Tree) => {
                let sub = repo.find_tree(entry.id())?;
                collect(repo, &sub, prefix, out)?;
            }
            Some(ObjectType::Blob) => {
                #[expect(clippy::cast_sign_loss, reason = "git modes are positive")]
                out.push(Leaf {
                    path: prefix.clone(),
                    mode: entry.filemode() as u32,
                    id: entry.id(),
                });
            }
            _ => {}
        }
        prefix.truncate(start);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::ffi::OsStrExt as _;

    use super::*;

    fn leaf(repo: &Repository, path: &str, text: &str) -> Leaf {
        Leaf {
            path: path.as_bytes().to_vec(),
            mode: 0o100_644,
            id: repo.blob(text.as_bytes()).unwrap(),
        }
    }

    /// libgit2's tree builder is the oracle for the format and the order (names that sort
    /// differently as trees and as files: `a` against `a.b` and `a-b`).
    #[test]
    fn trees_are_what_libgit2_writes() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init_bare(dir.path()).unwrap();
        let blob = repo.blob(b"x").unwrap();
        let sub = {
            let mut b = repo.treebuilder(None).unwrap();
            b.insert("f", blob, 0o100_644).unwrap();
            b.write().unwrap()
        };
        let names: [(&[u8], u32, Oid); 7] = [
            (b"a.b", 0o100_644, blob),
            (b"a", MODE_TREE, sub),
            (b"a-b", 0o100_755, blob),
            (b"a0", 0o120_000, blob),
            (b"b", MODE_TREE, sub),
            (b"b.c", MODE_TREE, sub),
            (b"\xff odd", 0o100_644, blob),
        ];
        let mut oracle = repo.treebuilder(None).unwrap();
        for (name, mode, id) in names {
            #[expect(clippy::cast_possible_wrap, reason = "git modes are small")]
            oracle
                .insert(std::ffi::OsStr::from_bytes(name), id, mode as i32)
                .unwrap();
        }
        let expected = oracle.write().unwrap();
        let mut ours = names.to_vec();
        ours.reverse();
        let id = repo
            .odb()
            .unwrap()
            .write(ObjectType::Tree, &serialize(&mut ours))
            .unwrap();
        assert_eq!(id, expected);
    }

    fn refs(leaves: &[Leaf]) -> Vec<LeafRef<'_>> {
        leaves.iter().map(Leaf::as_ref).collect()
    }

    #[test]
    fn builds_reads_back_and_reuses_unchanged_directories() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init_bare(dir.path()).unwrap();
        let mut old = vec![
            leaf(&repo, "a/b/c", "1"),
            leaf(&repo, "a/d", "2"),
            leaf(&repo, "a.x", "3"),
            leaf(&repo, "z", "4"),
        ];
        old.sort_by(|a, b| path_order(&a.path, &b.path));
        let all = dirty_dirs([], refs(&old));
        let cache = HashMap::new();
        let odb = repo.odb().unwrap();
        let mut new = NewObjects::default();
        let mut builder = Builder {
            new: &mut new,
            dirty: &all,
            cache: &cache,
            built: Vec::new(),
        };
        let root = builder.build(b"", &refs(&old));
        assert_eq!(builder.built.len(), 3);
        let built = builder.built;
        let (written, flushing) = new.write(dir.path(), Some(&odb)).unwrap();
        flushing.wait().unwrap();
        assert_eq!(written, 3);
        let tree = repo.find_tree(root).unwrap();
        assert_eq!(leaves(&repo, &tree).unwrap(), old);

        let mut new_leaves = old.clone();
        new_leaves[3] = leaf(&repo, "z", "changed");
        let dirty = dirty_dirs(refs(&old), refs(&new_leaves));
        assert_eq!(dirty, HashSet::from([Vec::new()]));
        let cache: HashMap<_, _> = built.into_iter().collect();
        let mut new = NewObjects::default();
        let mut again = Builder {
            new: &mut new,
            dirty: &dirty,
            cache: &cache,
            built: Vec::new(),
        };
        let root = again.build(b"", &refs(&new_leaves));
        assert_eq!(again.built.len(), 1, "only the root is rebuilt");
        new.write(dir.path(), Some(&odb)).unwrap().1.wait().unwrap();
        let tree = repo.find_tree(root).unwrap();
        assert_eq!(leaves(&repo, &tree).unwrap(), new_leaves);
    }
}
