//! `agent-guard config trust`.

use agent_guard_engine::{EnvSnapshot, trust_config};

use crate::args::{ConfigArgs, ConfigCommand};
use crate::check::absolute_cwd;
use crate::exit_code::ExitCode;
use crate::{person, printer};

/// Runs `config`.
pub fn run(args: &ConfigArgs) -> anyhow::Result<ExitCode> {
    let ConfigCommand::Trust(args) = &args.command;
    let cwd = absolute_cwd(args.cwd.as_deref())?;
    person::check().map_err(|why| person::refusal("config trust", &why))?;
    let env = EnvSnapshot::capture();
    let report = trust_config(&cwd, &env, true)?;
    if args.json {
        printer::json(&report);
    } else if report.loosening.is_empty() {
        printer::out(&format!(
            "trusted {} (it loosens nothing; recorded in {})",
            report.file.display(),
            report.record.display()
        ));
    } else {
        printer::out(&format!(
            "trusted {}: {} now apply (recorded in {}; a change to the file needs trust again)",
            report.file.display(),
            report.loosening.join(", "),
            report.record.display()
        ));
    }
    Ok(ExitCode::Success)
}
