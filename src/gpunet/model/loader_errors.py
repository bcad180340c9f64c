"""Ansible's loader errors as Problems that name the file and, where Ansible gives one, the line.

Kept apart from loader.py (which is about reading fast and exactly as ansible-playbook does) so
the wording can change without touching the reading: loader.py calls these on the way out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpunet.model.errors import Problem

YAML_SUFFIXES = (".yml", ".yaml")
VAULT_HINT = "; check the vault password file, or leave it out: gpunet reads no secrets"


def file_naming_loader() -> Any:
    """A DataLoader whose errors name the file being read (Ansible's vault errors do not)."""
    from ansible.errors import AnsibleError
    from ansible.parsing.dataloader import DataLoader

    class FileNamingLoader(DataLoader):
        def load_from_file(self, file_name: str, *args: Any, **kwargs: Any) -> Any:
            refuse_unreadable(file_name)
            try:
                return super().load_from_file(file_name, *args, **kwargs)
            except AnsibleError as error:
                if _origin(error) is None:
                    error.gpunet_file = file_name  # type: ignore[attr-defined]
                raise

    return FileNamingLoader()


def source_problem(source: Path, failures: list[tuple[str, Exception]]) -> Problem | None:
    """Of the inventory plugins that rejected the source, the one for the format the failing file
    claims (YAML by extension, else INI), preferring an answer with a line number."""
    if not failures:
        return None

    def rank(failure: tuple[str, Exception]) -> tuple[bool, bool]:
        message, error = failure
        where = _origin(error) or str(source)
        file_part = where.rsplit(":", 1)[0] if where.rsplit(":", 1)[-1].isdigit() else where
        wanted = "'yaml' plugin" if file_part.endswith(YAML_SUFFIXES) else "'ini' plugin"
        return (wanted in message, where != file_part)

    chosen = max(failures, key=rank)  # max keeps the first of equals: Ansible's own order
    return problem(chosen[1], str(source))


def problem(error: Exception, fallback_path: str) -> Problem:
    """A Problem located at the file and line Ansible blames, else at `fallback_path`."""
    message = one_line(error)
    if type(error).__name__ == "AnsibleVaultError" or "Decryption failed" in message:
        message = message.rstrip(".") + VAULT_HINT
    return Problem(_origin(error) or fallback_path, message)


def one_line(error: Exception) -> str:
    """Ansible errors span lines (with a source excerpt); keep the first line of the message."""
    text = str(getattr(error, "message", "") or error)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " ".join(lines[:2]) if lines else type(error).__name__


def dedupe(problems: list[Problem]) -> list[Problem]:
    """A broken group_vars or vault file breaks every host in the group: say it once."""
    hosts_by_message: dict[str, list[str]] = {}
    for found in problems:
        paths = hosts_by_message.setdefault(found.message, [])
        if found.path not in paths:  # a file:line origin is the same for every host
            paths.append(found.path)
    return [
        Problem(paths[0] if len(paths) == 1 else f"{paths[0]} (and {len(paths) - 1} more hosts)", message)
        for message, paths in hosts_by_message.items()
    ]


def refuse_unreadable(file_name: str) -> None:
    """Before Ansible's loader reads `file_name`: raise an AnsibleError naming it (and the line)
    when it is not UTF-8 text, its YAML aliases expand past the bound (which Ansible would walk
    until memory ran out) or a mapping holds a key twice: yaml_bounds, as on the fast path.
    Ansible's own duplicate-key check (DUPLICATE_YAML_DICT_KEY) stays at its default, a warning:
    set to error it also refuses a key that overrides a merge key (`{<<: *base, speed: 100}`),
    which YAML allows. Vault files and YAML syntax errors are Ansible's to report."""
    import yaml
    from ansible.errors import AnsibleParserError

    from gpunet.model.yaml_bounds import YamlRefused, check_tree

    with open(file_name, "rb") as handle:
        raw = handle.read()
    if raw.startswith(b"$ANSIBLE_VAULT;"):
        return
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        refused = AnsibleParserError(undecodable(raw, error))
        refused.gpunet_file = file_name  # type: ignore[attr-defined]
        raise refused from None
    try:
        node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        if node is not None:
            check_tree(node)
    except yaml.YAMLError:
        return
    except YamlRefused as error:
        refused = AnsibleParserError(str(error))
        refused.gpunet_file = f"{file_name}:{error.line}" if error.line else file_name  # type: ignore[attr-defined]
        raise refused from None


def undecodable(raw: bytes, error: UnicodeDecodeError) -> str:
    """Why a variables or inventory file cannot be read as text."""
    return f"is not UTF-8 text (byte {raw[error.start]:#04x} at offset {error.start}): a binary file?"


def short_path(path: str) -> str:
    """`path` as errors name files: relative to the working folder when inside it."""
    return _short(path)


def _origin(error: BaseException) -> str | None:
    seen: BaseException | None = error
    while seen is not None:
        found = _origin_of(getattr(seen, "obj", None)) or _short_or_none(getattr(seen, "gpunet_file", None))
        if found:
            return found
        seen = seen.__cause__ or seen.__context__
    return None


def _origin_of(origin: Any) -> str | None:
    """'file:line' from an Ansible Origin tag."""
    path, line = getattr(origin, "path", None), getattr(origin, "line_num", None)
    if not path:
        return None
    return f"{_short(path)}:{line}" if line else _short(path)


def _short_or_none(path: str | None) -> str | None:
    return _short(path) if path else None


def _short(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
