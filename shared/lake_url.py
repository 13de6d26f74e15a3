"""Where the lake lives: ``PITWALL_LAKE_URL`` = unset (``<data_dir>/lake``), a local path, or
``s3://bucket/prefix`` on S3-compatible storage (AWS, SeaweedFS, MinIO, R2) through pyarrow's S3 filesystem.

This module is the one place that knows the URL forms, builds the S3 filesystem from the settings, and
turns S3 failures into sentences that name what is wrong (the scheme, the endpoint, the credentials, the
bucket). It does no I/O at import and never prints a secret.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

import pyarrow.fs as pafs

SCHEMES = ("s3", "file", "")


class LakeUnavailable(ValueError):
    """The S3 lake cannot be used: the message names the endpoint, bucket or credentials at fault."""

    def __init__(self, message: str, reachable: bool = True) -> None:
        super().__init__(message)
        self.reachable = reachable  # False: the network or the server is down (a car may still spool)


@dataclass(frozen=True)
class LakeTarget:
    """An S3 lake: bucket and key prefix (no leading or trailing slash; may be empty), and the
    ``deltalake`` storage options that reach it (endpoint, credentials: never printed)."""

    bucket: str
    prefix: str
    options: tuple[tuple[str, str], ...] = field(default=(), repr=False, compare=False)

    @property
    def url(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}".rstrip("/")

    def path(self, key: str) -> str:
        """The pyarrow path (``bucket/prefix/key``) of a key relative to the lake."""
        return "/".join(p for p in (self.bucket, self.prefix, key.lstrip("/")) if p)


def _secret(v: Any) -> str:
    return v.get_secret_value() if hasattr(v, "get_secret_value") else str(v or "")


def lake_url_problem(settings: Any) -> None:
    """Raise ValueError naming the setting when the lake URL or the S3 settings cannot work."""
    url = settings.lake_url
    if not url:
        return
    parsed = urlparse(url)
    scheme = parsed.scheme.lower()
    if len(scheme) == 1:  # a Windows drive letter, c:\\lake
        scheme = ""
    if scheme not in SCHEMES:
        raise ValueError(
            f"PITWALL_LAKE_URL={url!r}: the scheme {scheme!r} is not supported; use a local path or "
            "s3://bucket/prefix (S3-compatible storage, with PITWALL_S3_ENDPOINT for a non-AWS server)"
        )
    if scheme != "s3":
        return
    if not parsed.netloc or "/" in parsed.netloc:
        raise ValueError(f"PITWALL_LAKE_URL={url!r} names no bucket; use s3://bucket/prefix")
    if parsed.query or parsed.fragment or ".." in parsed.path.split("/"):
        raise ValueError(f"PITWALL_LAKE_URL={url!r}: the prefix must be a plain key prefix")
    ep = settings.s3_endpoint
    if ep is not None:
        e = urlparse(ep)
        if e.scheme not in ("http", "https") or not e.hostname:
            raise ValueError(f"PITWALL_S3_ENDPOINT={ep!r} is not an http(s) URL; e.g. http://127.0.0.1:8333")
    if (settings.s3_access_key is None) != (settings.s3_secret_key is None):
        raise ValueError("set both PITWALL_S3_ACCESS_KEY and PITWALL_S3_SECRET_KEY, or neither")


def s3_target(settings: Any) -> LakeTarget:
    p = urlparse(settings.lake_url)
    return LakeTarget(p.netloc, p.path.strip("/"), delta_options(settings))


def delta_options(settings: Any) -> tuple[tuple[str, str], ...]:
    """The S3 settings as ``deltalake`` storage options (the same endpoint, credentials and timeout as
    :func:`s3_filesystem`)."""
    opts = {"AWS_REGION": settings.s3_region, "timeout": f"{max(1, int(settings.s3_timeout_s))}s"}
    if settings.s3_endpoint:
        opts["AWS_ENDPOINT_URL"] = settings.s3_endpoint.rstrip("/")
        if urlparse(settings.s3_endpoint).scheme == "http":
            opts["AWS_ALLOW_HTTP"] = "true"
    if settings.s3_access_key is not None:
        opts["AWS_ACCESS_KEY_ID"] = _secret(settings.s3_access_key)
        opts["AWS_SECRET_ACCESS_KEY"] = _secret(settings.s3_secret_key)
    return tuple(sorted(opts.items()))


def s3_filesystem(settings: Any, attempts: int = 3) -> pafs.S3FileSystem:
    """pyarrow's S3 filesystem for the lake's endpoint and credentials (``attempts`` per request)."""
    kw: dict[str, Any] = {
        "region": settings.s3_region,
        "connect_timeout": settings.s3_timeout_s,
        "request_timeout": settings.s3_timeout_s,
        "retry_strategy": pafs.AwsStandardS3RetryStrategy(max_attempts=attempts),
    }
    if settings.s3_endpoint:
        e = urlparse(settings.s3_endpoint)
        kw["endpoint_override"] = e.netloc + e.path.rstrip("/")
        kw["scheme"] = e.scheme
    if settings.s3_access_key is not None:
        kw["access_key"] = _secret(settings.s3_access_key)
        kw["secret_key"] = _secret(settings.s3_secret_key)
    return pafs.S3FileSystem(**kw)


def explain(exc: BaseException, settings: Any) -> LakeUnavailable:
    """An S3 failure as a sentence naming the endpoint, the bucket or the credentials."""
    msg = str(exc)
    where = settings.s3_endpoint or "AWS S3"
    target = s3_target(settings)
    low = msg.lower()
    if any(
        k in low
        for k in ("access_denied", "accessdenied", "invalidaccesskeyid", "signaturedoesnotmatch", "forbidden")
    ):
        return LakeUnavailable(
            f"the S3 server at {where} refused the credentials for bucket {target.bucket!r} "
            "(check PITWALL_S3_ACCESS_KEY and PITWALL_S3_SECRET_KEY)"
        )
    if "nosuchbucket" in low or "no_such_bucket" in low:
        return LakeUnavailable(f"bucket {target.bucket!r} does not exist at {where}; create it first")
    return LakeUnavailable(
        f"cannot reach the S3 lake {target.url} at {where} (PITWALL_S3_ENDPOINT): {msg.splitlines()[0][:200]}",
        reachable=False,
    )


def check_s3_lake(settings: Any) -> None:
    """At start-up: the bucket answers with these credentials, else LakeUnavailable naming what is wrong."""
    fs = s3_filesystem(settings, attempts=1)
    target = s3_target(settings)
    try:
        info = fs.get_file_info(target.bucket)
        if info.type == pafs.FileType.NotFound:
            raise LakeUnavailable(
                f"bucket {target.bucket!r} does not exist at {settings.s3_endpoint or 'AWS S3'}; create it first"
            )
        fs.get_file_info(target.path("_catalog/credentials-check"))  # a read with these credentials
    except LakeUnavailable:
        raise
    except OSError as exc:
        raise explain(exc, settings) from exc
