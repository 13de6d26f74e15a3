"""A pyarrow filesystem that forwards to another and counts its requests: listings, opens (GETs), HEADs."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pyarrow.fs as pafs


class CountingHandler(pafs.FileSystemHandler):
    def __init__(self, base: pafs.FileSystem) -> None:
        self.base = base
        self.calls: Counter[str] = Counter()
        self.opened: list[str] = []

    def reset(self) -> None:
        self.calls.clear()
        self.opened.clear()

    def get_type_name(self) -> str:
        return "counting"

    def normalize_path(self, path: str) -> str:
        return path

    def equals(self, other: Any) -> bool:
        return other is self

    def get_file_info(self, paths: list[str]) -> list[pafs.FileInfo]:
        self.calls["head"] += len(paths)
        return self.base.get_file_info(paths)

    def get_file_info_selector(self, selector: pafs.FileSelector) -> list[pafs.FileInfo]:
        self.calls["list"] += 1
        return self.base.get_file_info(selector)

    def open_input_file(self, path: str) -> Any:
        self.calls["open"] += 1
        self.opened.append(path)
        return self.base.open_input_file(path)

    def open_input_stream(self, path: str) -> Any:
        self.calls["open"] += 1
        self.opened.append(path)
        return self.base.open_input_stream(path)

    def open_output_stream(self, path: str, metadata: Any) -> Any:
        self.calls["put"] += 1
        return self.base.open_output_stream(path)

    def open_append_stream(self, path: str, metadata: Any) -> Any:
        raise NotImplementedError

    def create_dir(self, path: str, recursive: bool) -> None:
        self.base.create_dir(path, recursive=recursive)

    def delete_dir(self, path: str) -> None:
        self.base.delete_dir(path)

    def delete_dir_contents(self, path: str, missing_dir_ok: bool = False) -> None:
        self.base.delete_dir_contents(path, missing_dir_ok=missing_dir_ok)

    def delete_root_dir_contents(self) -> None:
        raise NotImplementedError

    def delete_file(self, path: str) -> None:
        self.calls["delete"] += 1
        self.base.delete_file(path)

    def move(self, src: str, dest: str) -> None:
        self.base.move(src, dest)

    def copy_file(self, src: str, dest: str) -> None:
        self.base.copy_file(src, dest)


def counting(base: pafs.FileSystem) -> tuple[pafs.PyFileSystem, CountingHandler]:
    h = CountingHandler(base)
    return pafs.PyFileSystem(h), h
