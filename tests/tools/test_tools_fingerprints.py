import hashlib
import json

from noesis_nb.tools import (
    PayloadRedactionPolicy,
    ToolIdentity,
    ToolProtocol,
    apply_redaction,
    build_payload_evidence,
    is_secret_key,
    request_fingerprint,
)


def _independent_fp(payload):
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_request_fingerprint_is_sha256_of_canonical_json():
    payload = {"b": [1, 2, {"z": "é→", "a": None}], "a": 1.5}
    assert request_fingerprint(payload) == _independent_fp(payload)
    assert request_fingerprint(payload) != _independent_fp({**payload, "a": 2})


def test_tool_key_and_display_key():
    tool = ToolIdentity(namespace="repo", name="write_file", version="1")
    assert tool.tool_key(ToolProtocol.SUBPROCESS) == "subprocess.repo.write_file.1"
    assert ToolIdentity(namespace="repo", name="ls").tool_key("subprocess") == "subprocess.repo.ls"
    assert tool.key == "repo.write_file@1"


def test_redact_and_hash_fields_top_level_and_dotted():
    payload = {"note": "hello", "blob": {"k": [1, 2]}, "env": {"REGION": "eu", "HOME": "/h"}}
    policy = PayloadRedactionPolicy(redact_fields=("note", "env.REGION"), hash_fields=("blob",))
    out = apply_redaction(payload, policy)
    assert out["note"] == "[REDACTED]"
    assert out["env"] == {"REGION": "[REDACTED]", "HOME": "/h"}
    assert out["blob"] == "sha256:" + hashlib.sha256(repr({"k": [1, 2]}).encode()).hexdigest()
    assert payload["note"] == "hello"  # input untouched


def test_evidence_stores_no_secret_and_fingerprints_the_stored_payload():
    real = {"argv": ["x"], "env": {"GITHUB_TOKEN": "tok-123456", "max_tokens": "5"}, "note": "n"}
    evidence = build_payload_evidence(real, PayloadRedactionPolicy(redact_fields=("note",)))
    assert evidence.request_fingerprint == _independent_fp(evidence.normalized_payload)
    assert evidence.request_fingerprint != _independent_fp(real)  # no hash of the secret bytes
    for stored in (evidence.normalized_payload, evidence.redacted_payload):
        assert stored["env"] == {"GITHUB_TOKEN": "[REDACTED]", "max_tokens": "5"}
        assert stored["note"] == "[REDACTED]"
    assert evidence.redaction_applied is True


def test_redaction_applied_false_without_rules_or_secrets():
    assert build_payload_evidence({"argv": ["ls"]}).redaction_applied is False
    assert build_payload_evidence({"argv": ["ls"]}, PayloadRedactionPolicy(hash_fields=("absent",))).redaction_applied


def test_secret_key_detection():
    for key in (
        "password",
        "DB_PASSWORD",
        "apiKey",
        "X-Api-Key",
        "Authorization",
        "cookie",
        "credentials",
        "private_key",
        "AWS_SECRET_ACCESS_KEY",
        "auth_token",
        "passwd",
    ):
        assert is_secret_key(key), key
    for key in ("max_tokens", "tokenizer", "path", "PWD", "monkey", "keyboard"):
        assert not is_secret_key(key), key
