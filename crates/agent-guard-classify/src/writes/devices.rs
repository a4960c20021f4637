//! Tools that write block devices (or image files): `mkfs` and `mkfs.*`, `mke2fs`,
//! `mkswap`, `mkdosfs`, `mkntfs`, `wipefs -a`, `blkdiscard`, the partitioners (`fdisk`,
//! `sfdisk`, `gdisk`, `sgdisk`, `cfdisk`, `parted`), `badblocks -w`, `cryptsetup
//! luksFormat|erase`.
//!
//! Every operand is a target, option values included: which word is the device differs
//! between the tools and their versions, and an extra target is only probed (a device node
//! outside the workspace is refused by the policy; an image file inside is preserved). Their
//! read-only forms (`fdisk -l`, `wipefs` without `-a`, `sgdisk -p`, `parted -l`, dry runs)
//! write nothing.

use agent_guard_types::{OpSpec, WriteMode};

use super::{file, overwrite};
use crate::args::Arg;

/// Returns `true` for the programs of this module.
pub(super) fn is_device_tool(name: &str) -> bool {
    name.starts_with("mkfs.")
        || matches!(
            name,
            "mkfs"
                | "mke2fs"
                | "mkswap"
                | "mkdosfs"
                | "mkntfs"
                | "mkexfatfs"
                | "wipefs"
                | "blkdiscard"
                | "fdisk"
                | "sfdisk"
                | "cfdisk"
                | "gdisk"
                | "sgdisk"
                | "cgdisk"
                | "parted"
                | "badblocks"
                | "cryptsetup"
        )
}

/// Whether the invocation only reads (lists, prints, dry-runs).
fn reads_only(name: &str, texts: &[&str]) -> bool {
    let has = |options: &[&str]| texts.iter().any(|t| options.contains(t));
    let has_letter = |letter: char| {
        texts
            .iter()
            .any(|t| t.starts_with('-') && !t.starts_with("--") && t[1..].contains(letter))
    };
    if has(&["--help", "-h", "-V", "--version"]) {
        return true;
    }
    match name {
        "wipefs" => {
            !(has(&["--all"])
                || has_letter('a')
                || has_letter('o')
                || texts.iter().any(|t| t.starts_with("--offset")))
                || has(&["-n", "--no-act"])
        }
        "fdisk" | "sfdisk" => has(&[
            "-l",
            "--list",
            "-d",
            "--dump",
            "-J",
            "--json",
            "-s",
            "--show-size",
            "-V",
            "--verify",
            "-F",
            "--list-free",
            "-g",
            "--show-geometry",
            "--no-act",
            "-n",
        ]),
        "sgdisk" | "gdisk" => {
            texts.iter().all(|t| {
                !t.starts_with('-')
                    || matches!(
                        *t,
                        "-p" | "--print"
                            | "-v"
                            | "--verify"
                            | "-L"
                            | "--list-types"
                            | "-O"
                            | "--print-mbr"
                            | "-P"
                            | "--pretend"
                    )
            }) && !texts.is_empty()
                || has(&["-P", "--pretend"])
        }
        "parted" => {
            has(&["-l", "--list"])
                || (texts.iter().any(|t| *t == "print" || *t == "p")
                    && texts.iter().all(|t| {
                        t.starts_with('-')
                            || t.starts_with('/')
                            || matches!(
                                *t,
                                "print"
                                    | "p"
                                    | "unit"
                                    | "s"
                                    | "B"
                                    | "MB"
                                    | "MiB"
                                    | "GB"
                                    | "GiB"
                                    | "%"
                                    | "cyl"
                                    | "chs"
                                    | "compact"
                            )
                    }))
        }
        "badblocks" => !has_letter('w'),
        "cryptsetup" => !texts.iter().any(|t| {
            matches!(
                *t,
                "luksFormat"
                    | "format"
                    | "erase"
                    | "luksErase"
                    | "reencrypt"
                    | "luksKillSlot"
                    | "luksRemoveKey"
            )
        }),
        "mke2fs" => has(&["-n"]),
        _ if name.starts_with("mkfs.ext") => has(&["-n"]),
        _ if name.starts_with("mkfs.xfs") => has(&["-N"]),
        _ => false,
    }
}

/// The overwrite op of a device tool; `None` for another program or a read-only form.
pub(super) fn parse(name: &str, args: &[Arg]) -> Option<OpSpec> {
    if !is_device_tool(name) {
        return None;
    }
    let texts: Vec<&str> = args.iter().filter_map(Arg::known).collect();
    if reads_only(name, &texts) {
        return None;
    }
    let mut op = overwrite(name, WriteMode::InPlace);
    op.targets = args
        .iter()
        .filter(|a| !a.is_option())
        .map(|a| file(a, true))
        .collect();
    op.note(format!(
        "{name} writes the device or image it is given; every operand is probed"
    ));
    Some(op)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<Arg> {
        line.split_whitespace().map(Arg::literal).collect()
    }

    fn targets(name: &str, line: &str) -> Option<Vec<String>> {
        parse(name, &args(line)).map(|o| o.targets.into_iter().map(|t| t.text).collect())
    }

    #[test]
    fn devices_are_targets_and_read_only_forms_write_nothing() {
        assert_eq!(
            targets("mkfs.ext4", "-F -L data /dev/sdb1").unwrap(),
            ["data", "/dev/sdb1"]
        );
        assert_eq!(
            targets("mkfs", "-t ext4 disk.img").unwrap(),
            ["ext4", "disk.img"]
        );
        assert_eq!(targets("mkswap", "/dev/sdc2").unwrap(), ["/dev/sdc2"]);
        assert_eq!(targets("wipefs", "-a /dev/sdb").unwrap(), ["/dev/sdb"]);
        assert!(targets("wipefs", "/dev/sdb").is_none());
        assert!(targets("wipefs", "-a -n /dev/sdb").is_none());
        assert!(targets("fdisk", "-l /dev/sda").is_none());
        assert_eq!(targets("fdisk", "/dev/sda").unwrap(), ["/dev/sda"]);
        assert!(targets("sgdisk", "-p /dev/sda").is_none());
        assert!(targets("sgdisk", "--zap-all /dev/sda").is_some());
        assert!(targets("parted", "-s /dev/sda print").is_none());
        assert!(targets("parted", "-s /dev/sda mklabel gpt").is_some());
        assert!(targets("badblocks", "-sv /dev/sda").is_none());
        assert!(targets("badblocks", "-wsv /dev/sda").is_some());
        assert!(targets("cryptsetup", "open /dev/sda2 x").is_none());
        assert!(targets("cryptsetup", "luksFormat /dev/sda2").is_some());
        assert!(targets("mke2fs", "-n /dev/sda1").is_none());
        assert!(targets("ls", "/dev/sda").is_none());
    }
}
