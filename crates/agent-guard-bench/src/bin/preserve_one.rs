//! The guard's preservation step alone, as one process: keep the current version of one
//! file in a new transaction of a store — by hard link (`link`: the command only replaces
//! the name) or by reflink or verified copy (`copy`: the command rewrites the inode) — with
//! its durable journal records, and nothing else (no policy, no audit, no hook). Started
//! the way `ln` and `cp --reflink=auto` are, so that `bench/preserve.sh` compares like with
//! like.
//!
//! `preserve-one WORKSPACE STORE FILE link|copy`

use std::path::PathBuf;
use std::process::ExitCode;

use agent_guard_quarantine::{NoProgress, PreserveItem, Quarantine, TxMeta};
use agent_guard_types::TxId;

#[expect(
    clippy::print_stderr,
    reason = "a benchmark tool says why it failed on stderr"
)]
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [workspace, store, file, how] = args.as_slice() else {
        eprintln!("usage: preserve-one WORKSPACE STORE FILE link|copy");
        return ExitCode::from(2);
    };
    // The guard makes the store on first use (untimed there: it is made once).
    if let Err(error) = std::fs::create_dir_all(store) {
        eprintln!("error: cannot create the store {store}: {error}");
        return ExitCode::FAILURE;
    }
    let quarantine = Quarantine::new(PathBuf::from(workspace), PathBuf::from(store));
    let stamp = chrono::Utc::now().format("%Y%m%d-%H%M%S").to_string();
    let Ok(txid) = TxId::generated(&stamp, std::process::id()) else {
        eprintln!("error: no transaction id");
        return ExitCode::FAILURE;
    };
    let item = PreserveItem {
        origin: PathBuf::from(workspace).join(file),
        raw: file.clone(),
        link: how == "link",
        max_copy: Some(u64::MAX),
        by_name: how == "link",
    };
    match quarantine.preserve(&[item], &txid, TxMeta::default(), &NoProgress) {
        Ok(report) if report.complete() => ExitCode::SUCCESS,
        Ok(report) => {
            eprintln!("error: not kept: {:?}", report.skipped);
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
