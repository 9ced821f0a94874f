"""A set that counts its modifications: the running example of the Reneri paper, in Python."""


class VersionedSet:
    def __init__(self):
        self._version = 0
        self._elements = []

    def add(self, item):
        self._elements.append(item)
        self._increment_version()

    def _increment_version(self):
        self._version += 1

    @property
    def version(self):
        return self._version

    def size(self):
        return len(self._elements)

    def is_empty(self):
        return self.size() == 0

    def contains(self, item):
        return item in self._elements

    def __eq__(self, other):
        if not isinstance(other, VersionedSet):
            return False
        if self.is_empty() and other.is_empty():
            return True
        if self.size() != other.size():
            return False
        return all(other.contains(item) for item in self._elements)

    __hash__ = None

    def intersect(self, other):
        result = VersionedSet()
        for item in self._elements:
            if other.contains(item):
                result.add(item)
        return result
