#!/usr/bin/env python3
"""Fetch vLLM 0.33.0's source distribution into an ignored cache folder, hash-checked.

``pip download --no-binary :all: vllm==0.33.0`` cannot fetch it: pip prepares the sdist's
metadata, which needs torch and a Rust toolchain. So the file's link is resolved the way pip
resolves it, from the package index's simple API (PEP 691 JSON, the page pip reads), with the
legacy JSON API as a fallback, and the file is downloaded with Python and checked against the
size and sha256 recorded below before it is moved into place.

Usage: scripts/fetch_vllm_sdist.py [--cache DIR] [--extract]
Prints the path of the tarball (or, with --extract, of the unpacked tree) on stdout.
Exit 0 on success, 1 when the index, the download or the hash check fails (with the reason).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

PROJECT = "vllm"
VERSION = "0.33.0"
FILENAME = f"{PROJECT}-{VERSION}.tar.gz"
SIZE = 47_101_396
SHA256 = "f4c33c2503d52bb411146afa9618a4f48bed68912f617e6803ac8d76e4c74112"
INDEX = os.environ.get("DSV41GEN_PYPI_URL", "https://pypi.org").rstrip("/")
DEFAULT_CACHE = Path(__file__).resolve().parent.parent / ".cache" / "vllm-sdist"
TIMEOUT_S = 120


class FetchError(Exception):
    pass


def _get_json(url: str, accept: str) -> dict:
    request = urllib.request.Request(url, headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
        return json.load(response)


def resolve_link() -> str:
    """The sdist's URL as the index lists it; the index's own hash must match ours."""
    errors = []
    try:
        page = _get_json(f"{INDEX}/simple/{PROJECT}/", "application/vnd.pypi.simple.v1+json")
        for entry in page.get("files", []):
            if entry.get("filename") == FILENAME:
                listed = entry.get("hashes", {}).get("sha256")
                if listed and listed != SHA256:
                    raise FetchError(
                        f"the index lists {FILENAME} with sha256 {listed}, expected {SHA256}"
                    )
                return entry["url"]
        errors.append(f"simple API: {FILENAME} not listed")
    except FetchError:
        raise
    except Exception as exc:  # network / decoding: try the other API
        errors.append(f"simple API: {exc}")
    try:
        release = _get_json(f"{INDEX}/pypi/{PROJECT}/{VERSION}/json", "application/json")
        for entry in release.get("urls", []):
            if entry.get("filename") == FILENAME:
                return entry["url"]
        errors.append(f"JSON API: {FILENAME} not listed")
    except Exception as exc:
        errors.append(f"JSON API: {exc}")
    raise FetchError("cannot resolve the sdist's link: " + "; ".join(errors))


def _hash_file(path: Path) -> tuple[int, str]:
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


def verified(path: Path) -> bool:
    return path.is_file() and _hash_file(path) == (SIZE, SHA256)


def fetch(cache: Path = DEFAULT_CACHE) -> Path:
    """The verified tarball in ``cache``, downloaded once."""
    with _locked(cache):
        return _fetch(cache)


def _fetch(cache: Path) -> Path:
    target = cache / FILENAME
    if verified(target):
        return target
    cache.mkdir(parents=True, exist_ok=True)
    url = resolve_link()
    with tempfile.NamedTemporaryFile(dir=cache, prefix=".part-", delete=False) as part:
        part_path = Path(part.name)
        try:
            with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:
                shutil.copyfileobj(response, part, 1 << 20)
        except Exception as exc:
            part_path.unlink(missing_ok=True)
            raise FetchError(f"download of {url} failed: {exc}") from None
    size, digest = _hash_file(part_path)
    if (size, digest) != (SIZE, SHA256):
        part_path.unlink(missing_ok=True)
        raise FetchError(
            f"{url}: got {size} bytes with sha256 {digest}; expected {SIZE} bytes, sha256 {SHA256}"
        )
    os.replace(part_path, target)
    return target


@contextlib.contextmanager
def _locked(cache: Path):
    """One fetcher per cache at a time (pytest-xdist workers share the cache)."""
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def extract(cache: Path = DEFAULT_CACHE) -> Path:
    """The unpacked pristine tree (``cache/vllm-0.33.0``), unpacked once from the checked tarball."""
    with _locked(cache):
        return _extract(cache)


def _extract(cache: Path) -> Path:
    tree = cache / f"{PROJECT}-{VERSION}"
    stamp = tree / ".dsv41gen-extracted"
    if stamp.is_file() and stamp.read_text() == SHA256:
        return tree
    tarball = _fetch(cache)
    staging = Path(tempfile.mkdtemp(dir=cache, prefix=".extract-"))
    try:
        with tarfile.open(tarball) as archive:
            if hasattr(tarfile, "data_filter"):  # Python 3.10.12+: no links out, no devices
                archive.extractall(staging, filter="data")
            else:
                archive.extractall(staging)
        if tree.exists():
            shutil.rmtree(tree)
        os.replace(staging / f"{PROJECT}-{VERSION}", tree)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    stamp.write_text(SHA256)
    return tree


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--extract", action="store_true", help="also unpack it; print the tree")
    args = parser.parse_args(argv)
    try:
        path = extract(args.cache) if args.extract else fetch(args.cache)
    except FetchError as exc:
        print(f"fetch_vllm_sdist: {exc}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
