//! `ASK_OUTSIDE_DESTROY`.

use agent_guard_types::{OpSpec, ReasonCode, Unkept, UnkeptWhy, Verdict};

super::reason!(
    AskOutsideDestroy, AskOutsideDestroy, "ASK_OUTSIDE_DESTROY",
    catches: "Commands that tear down what lives outside the workspace: infrastructure tools (`terraform destroy`, `terraform apply -auto-approve` or of a saved plan, `tofu`, `terragrunt run-all destroy`, `pulumi destroy`, `pulumi up --yes`, `terraform state rm`), cluster clients (`kubectl delete`, `kubectl drain`, `kubectl replace --force`, `kubectl apply --prune`, `helm uninstall`), container engines' volumes (`docker volume rm|prune`, `docker system prune`, `docker compose down -v`, `docker rm -v`, and podman's and nerdctl's), cloud, hosting and storage CLIs by their verbs (`aws s3 rm`, `aws s3 rb`, `aws ec2 terminate-instances`, `aws s3 sync --delete`, `gcloud … delete`, `gsutil rm`, `az group delete`, `heroku apps:destroy`, `rclone sync|purge`, `gh repo delete`, …), and key-value stores (`redis-cli FLUSHALL`).",
    why: "Nothing the guard keeps (a quarantine, a checkpoint of the workspace) brings back a deleted bucket, cluster, volume or repository, and such commands often act on shared or production systems.",
    example: "terraform destroy -auto-approve",
    verdict: "ASK, with what is destroyed named: where the harness can ask a person it asks, elsewhere it is a deny. Never allowed without a person; a RESTRICTED session refuses it. A dry run (`--dry-run`, `--dryrun`) and `--help` destroy nothing.",
    recovery: "Nothing is kept outside the workspace; back up what the command destroys first, or run it against a disposable environment.",
    enforcement: None,
    hint: "Ask the user: this destroys resources outside the workspace that the guard cannot keep.",
    coverage: Coverage::Corpus,
);

/// The question for `op`: what it destroys, not kept.
pub(crate) fn verdict(op: &OpSpec) -> Verdict {
    let what = op.outside.as_ref().map_or_else(
        || "what the command destroys outside the workspace".to_owned(),
        |o| o.what.clone(),
    );
    let mut verdict = Verdict::of(ReasonCode::AskOutsideDestroy);
    verdict.reasons.clone_from(&op.notes);
    verdict.not_keeping([Unkept::new(what, UnkeptWhy::OutsideWorkspace)])
}
