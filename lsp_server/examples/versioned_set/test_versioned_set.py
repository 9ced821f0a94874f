from versioned_set import VersionedSet


def test_add():
    s = VersionedSet()
    s.add(1)
    assert s.contains(1)


def test_equals():
    one = VersionedSet()
    one.add(1)
    other = VersionedSet()
    other.add(1)
    assert one == other


def test_intersection():
    one = VersionedSet()
    one.add(1)
    one.add(2)
    other = VersionedSet()
    other.add(3)
    other.add(4)
    result = one.intersect(other)
    assert result.size() == 0
