//! Object ids for what a checkpoint stores: git's SHA-1 of `"<type> <size>\0"` and the
//! content, always with collision detection as git and libgit2 do (content crafted to
//! collide with other content is refused, never stored under the other's id).
//!
//! Blobs are hashed with detection inline ([`object_id`], the `sha1-checked` crate: the
//! detection of libgit2's bundled SHA1DC). Detection costs five times the hash itself, and
//! the trees a checkpoint rebuilds (a hundred directories of a hundred files each, for a
//! hundred changed files) are on the path every command waits for: their ids come from the
//! CPU's SHA instructions ([`fast_id`], the `sha1` crate) and the same content is checked
//! on a thread of its own ([`Vetting`]) while the pack is written; the checkpoint counts
//! only once the check has passed, so a collision still refuses it before the command runs.

use std::sync::mpsc;
use std::thread::JoinHandle;

use git2::{ObjectType, Oid};
use sha1::Digest as _;
use sha1_checked::CollisionResult;

/// The id git gives an object of `kind` holding `content`.
///
/// # Errors
/// The content carries a SHA-1 collision attack (as libgit2 reports it, and git refuses).
pub(crate) fn object_id(kind: ObjectType, content: &[u8]) -> Result<Oid, git2::Error> {
    checked(&[header(kind, content).as_bytes(), content])
}

/// The SHA-1 of `parts` one after the other, refused when collision detection fires.
fn checked(parts: &[&[u8]]) -> Result<Oid, git2::Error> {
    let mut sha = sha1_checked::Sha1::new();
    for part in parts {
        sha1_checked::digest::Update::update(&mut sha, part);
    }
    match sha.try_finalize() {
        CollisionResult::Ok(sum) => Oid::from_bytes(&sum),
        CollisionResult::Mitigated(_) | CollisionResult::Collision(_) => {
            Err(git2::Error::from_str(
                "the content carries a SHA-1 collision attack; it is not stored (git refuses it too)",
            ))
        }
    }
}

/// The id git gives an object of `kind` holding `content`, without collision detection:
/// only for content that is then [vetted](Vetting::vet).
pub(crate) fn fast_id(kind: ObjectType, content: &[u8]) -> Oid {
    let mut sha = sha1::Sha1::new();
    sha1::Digest::update(&mut sha, header(kind, content).as_bytes());
    sha1::Digest::update(&mut sha, content);
    let sum: [u8; 20] = sha.finalize().into();
    Oid::from_bytes(&sum).unwrap_or_else(|_| Oid::zero())
}

fn header(kind: ObjectType, content: &[u8]) -> String {
    format!("{} {}\0", kind_name(kind), content.len())
}

/// Collision detection, on a thread of its own, for content whose id [`fast_id`] gave.
#[derive(Debug, Default)]
pub(crate) struct Vetting {
    jobs: Option<mpsc::Sender<(String, Vec<u8>)>>,
    checker: Option<JoinHandle<Result<(), String>>>,
    /// What a check done inline (no thread could be started) found.
    failed: Option<String>,
}

impl Vetting {
    /// Checks `content`, an object of `kind`, for a collision attack, in the background.
    pub(crate) fn vet(&mut self, kind: ObjectType, content: Vec<u8>) {
        self.send(header(kind, &content), content);
    }

    fn send(&mut self, header: String, content: Vec<u8>) {
        if self.jobs.is_none() && self.failed.is_none() {
            let (jobs, queue) = mpsc::channel::<(String, Vec<u8>)>();
            let spawned = std::thread::Builder::new()
                .name("checkpoint-vetting".into())
                .spawn(move || {
                    queue.iter().try_for_each(|(header, content)| {
                        checked(&[header.as_bytes(), &content])
                            .map(drop)
                            .map_err(|error| error.message().to_owned())
                    })
                });
            if let Ok(checker) = spawned {
                self.jobs = Some(jobs);
                self.checker = Some(checker);
            }
        }
        let Some(jobs) = &self.jobs else {
            if self.failed.is_none()
                && let Err(error) = checked(&[header.as_bytes(), &content])
            {
                self.failed = Some(error.message().to_owned());
            }
            return;
        };
        // A checker that stopped has found a collision, which `finish` reports.
        let _ = jobs.send((header, content));
    }

    /// Waits for every check; `Err` says what was found.
    ///
    /// # Errors
    /// Some content carries a SHA-1 collision attack, or the check could not finish.
    pub(crate) fn finish(mut self) -> Result<(), String> {
        drop(self.jobs.take());
        if let Some(failed) = self.failed {
            return Err(failed);
        }
        match self.checker.map(JoinHandle::join) {
            None | Some(Ok(Ok(()))) => Ok(()),
            Some(Ok(Err(error))) => Err(error),
            Some(Err(_)) => Err("the SHA-1 collision check of the new objects stopped".to_owned()),
        }
    }
}

fn kind_name(kind: ObjectType) -> &'static str {
    match kind {
        ObjectType::Tree => "tree",
        ObjectType::Commit => "commit",
        ObjectType::Tag => "tag",
        ObjectType::Blob | ObjectType::Any => "blob",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_the_ones_libgit2_gives() {
        let mut content = Vec::new();
        for size in [0usize, 1, 55, 56, 63, 64, 65, 119, 1000, 3600, 70_000] {
            content.resize(size, 0);
            for (at, byte) in content.iter_mut().enumerate() {
                *byte = u8::try_from((at * 31 + size) % 251).unwrap();
            }
            for kind in [
                ObjectType::Blob,
                ObjectType::Tree,
                ObjectType::Commit,
                ObjectType::Tag,
            ] {
                let libgit2 = Oid::hash_object(kind, &content).unwrap();
                assert_eq!(
                    object_id(kind, &content).unwrap(),
                    libgit2,
                    "{kind:?}, {size}"
                );
                assert_eq!(fast_id(kind, &content), libgit2, "{kind:?}, {size}");
            }
        }
    }

    /// The SHA-mbles chosen-prefix collision (Leurent and Peyrin, 2020): two 640-byte files
    /// with one SHA-1. Hashed as they are, detection fires; as git blobs (a header in
    /// front) they are ordinary content with distinct ids, as in git.
    #[test]
    fn a_collision_attack_is_refused_and_its_files_as_blobs_are_not() {
        let one = include_bytes!("../tests/data/sha-mbles-1.bin");
        let two = include_bytes!("../tests/data/sha-mbles-2.bin");
        assert_ne!(one, two);
        assert!(checked(&[one]).is_err());
        assert!(checked(&[two]).is_err());
        let (a, b) = (
            object_id(ObjectType::Blob, one).unwrap(),
            object_id(ObjectType::Blob, two).unwrap(),
        );
        assert_ne!(a, b);
        assert_eq!(a, Oid::hash_object(ObjectType::Blob, one).unwrap());
    }

    #[test]
    fn vetting_passes_ordinary_content_and_reports_a_collision_attack() {
        let mut vetting = Vetting::default();
        for size in 0..50 {
            vetting.vet(ObjectType::Tree, vec![7; size * 100]);
        }
        assert_eq!(vetting.finish(), Ok(()));
        assert_eq!(Vetting::default().finish(), Ok(()));

        let mut vetting = Vetting::default();
        vetting.vet(ObjectType::Tree, b"ordinary".to_vec());
        let attack = include_bytes!("../tests/data/sha-mbles-2.bin");
        vetting.send(String::new(), attack.to_vec());
        vetting.vet(ObjectType::Tree, b"after it".to_vec());
        let found = vetting.finish().unwrap_err();
        assert!(found.contains("collision"), "{found}");
    }
}
