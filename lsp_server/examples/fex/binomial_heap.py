"""A binomial min-heap (the paper's fourth subject)."""

from __future__ import annotations


class Node:
    key: int
    degree: int
    parent: Node | None
    sibling: Node | None
    child: Node | None

    def __init__(self, key: int) -> None:
        self.key = key
        self.degree = 0
        self.parent = None
        self.sibling = None
        self.child = None


class BinomialHeap:
    head: Node | None
    size: int

    __fex_spec__ = (
        ("tree", ("head",), ("sibling", "child")),
        ("sibling_parent", "parent", "child", "sibling"),
        ("heap_ordered", "key", "parent"),
        ("binomial", "degree", "parent", "child", "sibling"),
        ("size", "size"),
    )

    def __init__(self) -> None:
        self.head = None
        self.size = 0

    def rep_ok(self) -> bool:
        seen: set[int] = set()
        node, last_degree = self.head, -1
        while node is not None:
            if id(node) in seen or node.parent is not None or node.degree <= last_degree:
                return False
            if not self._tree_ok(node, seen):
                return False
            last_degree = node.degree
            node = node.sibling
        return self.size == len(seen)

    def _tree_ok(self, node: Node, seen: set[int]) -> bool:
        """``node`` roots a binomial tree of its degree, heap-ordered, parents consistent."""
        seen.add(id(node))
        child, expected = node.child, node.degree - 1
        while child is not None:
            if id(child) in seen or child.parent is not node or child.degree != expected:
                return False
            if child.key < node.key or not self._tree_ok(child, seen):
                return False
            expected -= 1
            child = child.sibling
        return expected == -1

    def minimum(self) -> int | None:
        node, best = self.head, None
        while node is not None:
            if best is None or node.key < best:
                best = node.key
            node = node.sibling
        return best

    def insert(self, key: int) -> None:
        self._union(Node(key))
        self.size += 1

    def extract_min(self) -> int | None:
        if self.head is None:
            return None
        previous, best_previous, best = None, None, self.head
        node = self.head
        while node is not None:
            if node.key < best.key:
                best_previous, best = previous, node
            previous, node = node, node.sibling
        if best_previous is None:
            self.head = best.sibling
        else:
            best_previous.sibling = best.sibling
        reversed_children, child = None, best.child
        while child is not None:
            following = child.sibling
            child.parent = None
            child.sibling = reversed_children
            reversed_children = child
            child = following
        self._union(reversed_children)
        self.size -= 1
        return best.key

    def _union(self, other: Node | None) -> None:
        self.head = self._merge(self.head, other)
        if self.head is None:
            return
        previous, node = None, self.head
        following = node.sibling
        while following is not None:
            keep = node.degree != following.degree or (
                following.sibling is not None and following.sibling.degree == node.degree
            )
            if keep:
                previous, node = node, following
            elif node.key <= following.key:
                node.sibling = following.sibling
                self._link(following, node)
            else:
                if previous is None:
                    self.head = following
                else:
                    previous.sibling = following
                self._link(node, following)
                node = following
            following = node.sibling

    @staticmethod
    def _merge(a: Node | None, b: Node | None) -> Node | None:
        head: Node | None = None
        tail: Node | None = None
        while a is not None or b is not None:
            if b is None or (a is not None and a.degree <= b.degree):
                assert a is not None
                picked, a = a, a.sibling
            else:
                picked, b = b, b.sibling
            if tail is None:
                head = picked
            else:
                tail.sibling = picked
            tail = picked
        if tail is not None:
            tail.sibling = None
        return head

    @staticmethod
    def _link(child: Node, parent: Node) -> None:
        child.parent = parent
        child.sibling = parent.child
        parent.child = child
        parent.degree += 1

    def post_insert(self, before, result, key) -> bool:
        return self.size == before.size + 1 and self.minimum() == min(
            key, before.minimum() if before.minimum() is not None else key
        )

    def post_extract_min(self, before, result) -> bool:
        return result == before.minimum() and self.size == max(0, before.size - 1)

    @staticmethod
    def fex_scope(n: int) -> dict:
        return {"Node": n, "Node.key": range(n), "degree": range(n), "size": range(n + 1)}
