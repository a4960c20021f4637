//! The index read as a tree: its cache of tree ids (git's `TREE` extension) and the
//! children of a directory listed from the entries.
//!
//! A hard reset writes the target tree. Where the index's cache says a directory's tree is
//! the target's (same id, entry count known), git itself takes the directory's entries from
//! the index instead of reading the tree objects (`unpack-trees.c`,
//! `all_trees_same_as_cache_tree`), so a preflight that reads the index there predicts
//! exactly what git writes, without inflating a thousand tree objects.

use gix_index::extension::Tree;

use crate::index_file::{IndexFile, IndexSpan};

/// One directory of the index's tree cache.
#[derive(Debug, Clone, Copy)]
pub struct CachedTree<'i>(&'i Tree);

impl<'i> CachedTree<'i> {
    /// The cached tree id, when the cache holds one for this directory (git invalidates a
    /// directory, and every directory above it, when an entry below it changes).
    pub fn id(self) -> Option<&'i [u8]> {
        self.0.num_entries.map(|_| self.0.id.as_slice())
    }

    /// How many entries the cache says lie below this directory (`None` when invalid).
    pub fn entries(self) -> Option<usize> {
        self.0.num_entries.map(|n| n as usize)
    }

    /// The cache of the subdirectory `name`, if it has one.
    pub fn child(self, name: &[u8]) -> Option<CachedTree<'i>> {
        self.0
            .children
            .iter()
            .find(|child| child.name.as_slice() == name)
            .map(CachedTree)
    }
}

/// What a name inside a directory of the index is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexChild {
    /// An entry of its own (a file, symlink or gitlink).
    File,
    /// A directory: the entries below it.
    Directory(IndexSpan),
}

impl IndexFile {
    /// The tree cache of the root, when the index has one.
    pub fn cached_root(&self) -> Option<CachedTree<'_>> {
        self.cache_tree.as_ref().map(CachedTree)
    }

    /// Returns `true` if every entry of `span` is resolved (merge stage 0).
    pub fn resolved(&self, span: IndexSpan) -> bool {
        self.entries[span.start..span.end]
            .iter()
            .all(|e| e.stage == 0)
    }

    /// The names directly inside the directory whose path (with its trailing `/`, empty for
    /// the root) is `prefix_len` bytes long and whose entries are `span`, in index order.
    pub fn children(&self, span: IndexSpan, prefix_len: usize) -> Vec<(&[u8], IndexChild)> {
        let mut children: Vec<(&[u8], IndexChild)> = Vec::new();
        let mut at = span.start;
        while at < span.end {
            let rest = self
                .path(&self.entries[at])
                .get(prefix_len..)
                .unwrap_or_default();
            match rest.iter().position(|b| *b == b'/') {
                None => {
                    children.push((rest, IndexChild::File));
                    at += 1;
                }
                Some(slash) => {
                    let name = &rest[..slash];
                    let start = at;
                    at += 1;
                    while at < span.end {
                        let other = self.path(&self.entries[at]).get(prefix_len..);
                        let inside = other.is_some_and(|other| {
                            other.len() > slash && other[slash] == b'/' && other.starts_with(name)
                        });
                        if !inside {
                            break;
                        }
                        at += 1;
                    }
                    let below = IndexSpan { start, end: at };
                    children.push((name, IndexChild::Directory(below)));
                }
            }
        }
        children
    }
}

impl IndexSpan {
    /// The number of entries in the span.
    pub fn len(self) -> usize {
        self.end - self.start
    }
}

#[cfg(test)]
#[path = "index_tree_tests.rs"]
mod tests;
