"""Info values that Gymnasium's vector environments carry whole instead of merging key by key.

``SyncVectorEnv`` and ``AsyncVectorEnv`` batch the sub-environments' infos with ``_add_info``, which
descends into every ``dict`` value and builds one array per nested key from the first environment's
value. A seat's raw observation and its legal actions are JSON whose shape changes from position to
position (a trick is ``None`` or a dict, ``face_down`` is a bool or a list of cards), so merging them
fails or mixes the environments' values. A :class:`Record` is a read-only mapping that is not a
``dict``: the vector environments put each environment's record in an object array, one per
environment (``infos["raw_observation"][i]``), as they do for any other object.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class Record(Mapping[Any, Any]):
    """A read-only view of one JSON object: ``record[key]``, ``.get``, ``.items()``, ``==`` a dict.

    ``to_dict()`` gives the plain ``dict`` (for ``json.dumps`` or a function that wants exactly a dict,
    such as a compiled built-in bot's ``act``)."""

    __slots__ = ("_data",)

    def __init__(self, data: dict[Any, Any]):
        self._data = data

    def __getitem__(self, key: Any) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __repr__(self) -> str:
        return f"Record({self._data!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # AsyncVectorEnv sends infos between processes by pickle.
        return (Record, (self._data,))

    def to_dict(self) -> dict[Any, Any]:
        """The plain dict (a shallow copy: the record stays as it was)."""
        return dict(self._data)
