"""What the codemod reports: stable codes, each documented like a lint rule."""

from __future__ import annotations

from typing import NamedTuple

from ..options import Applicability


class Rule(NamedTuple):
    code: str
    name: str
    what: str
    why: str
    fix: str


RULES: dict[str, Rule] = {
    rule.code: rule
    for rule in (
        Rule(
            "TFT001",
            "config-only-session",
            "A session is made only to carry a ConfigProto (passed to Keras' set_session, or never used).",
            "On TF2 eager ops never see a session's config: the thread and placement settings silently do "
            "nothing, and the session starts a second inter-op pool.",
            "native: the fields become TF2 calls (tf.config.threading, tf.config ...) where they were set, "
            "and the session and set_session calls go. shim: tfcompat_threads applies the config process-wide.",
        ),
        Rule(
            "TFT002",
            "tf1-only-name",
            "A TF1 name that TF2 does not have (tf.ConfigProto, tf.Session, tf.train.MonitoredTrainingSession ...).",
            "It raises AttributeError on TF2.",
            "native: renamed to tf.compat.v1.*, which graph mode honours. shim: the tfcompat_threads call.",
        ),
        Rule(
            "TFT101",
            "unmappable-field",
            "A ConfigProto field that has no TF2 eager equivalent.",
            "Nothing in TF2 eager does what it did; dropping it silently changes the program.",
            "none: it stays in a tf.compat.v1 config for graph sessions; for a config-only session the "
            "native rewrite is unsafe (the field is left as a comment).",
        ),
        Rule(
            "TFT102",
            "config-kwargs",
            "ConfigProto(**kwargs): the fields are not known before the program runs.",
            "No rewrite can tell which TF2 calls to make.",
            "none: use tfcompat_threads.configure(tfcompat_threads.ConfigProto(**kwargs)) (the shim target does).",
        ),
        Rule(
            "TFT103",
            "eager-config-ignored",
            "enable_eager_execution(config=...) with a config.",
            "On TF2 eager execution is already on and the call ignores its config.",
            "none: call tfcompat_threads.configure(config) before the first op, or the TF2 calls.",
        ),
        Rule(
            "TFT104",
            "threading-after-op",
            "A tf.config.threading setter (or a thread setting the rewrite would place) comes after "
            "TensorFlow has already run an op in the same straight-line code.",
            "The pools are fixed by then: the call raises RuntimeError on TF2.",
            "none: move the thread settings before the first op, or set TF_NUM_INTRAOP_THREADS / "
            "TF_NUM_INTEROP_THREADS before the process starts.",
        ),
        Rule(
            "TFT105",
            "keras3-set-session",
            "Keras set_session with a session that is not config-only in this file (it runs graphs, or "
            "it is made elsewhere).",
            "Keras 3 (TF >= 2.16) has no set_session.",
            "none: keep tf-keras (TF_USE_LEGACY_KERAS=1) for this graph-mode code, or port it to TF2.",
        ),
        Rule(
            "TFT106",
            "config-not-followed",
            "A ConfigProto whose flow the codemod cannot follow (reassigned, stored on an object, "
            "changed in a compound statement, passed somewhere unknown).",
            "Its sessions may be config-only on TF2; no rewrite can tell.",
            "none: check where it goes; tfcompat_threads.configure(config) applies it process-wide.",
        ),
        Rule(
            "TFT107",
            "estimator-removed",
            "tf.estimator.RunConfig(session_config=...).",
            "tf.estimator is gone in TF 2.16; until then its session_config is honoured.",
            "none: keep TF <= 2.15 for Estimator code, or port it to Keras.",
        ),
    )
}


class Position(NamedTuple):
    line: int
    column: int


class Finding(NamedTuple):
    code: str
    message: str
    start: Position
    end: Position
    applicability: Applicability
    """safe / unsafe: a fix exists (applied by fix; unsafe only when asked); none: manual."""
    fixed: bool = False
    """Whether the returned source has this fix applied."""

    @property
    def rule(self) -> Rule:
        return RULES[self.code]

    @property
    def severity(self) -> str:
        return "warning" if self.applicability is Applicability.MANUAL else "error"

    def as_dict(self) -> dict:
        data = self._asdict()
        data["start"], data["end"] = self.start._asdict(), self.end._asdict()
        data["applicability"] = str(self.applicability)
        data["severity"] = self.severity
        data["name"] = self.rule.name
        return data
