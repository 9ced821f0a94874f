"""A binary search tree of distinct keys with a size field (the paper's second subject)."""

from __future__ import annotations


class Node:
    key: int
    left: Node | None
    right: Node | None

    def __init__(self, key: int) -> None:
        self.key = key
        self.left = None
        self.right = None


class BinarySearchTree:
    root: Node | None
    size: int

    __fex_spec__ = (
        ("tree", ("root",), ("left", "right")),
        ("ordered", "key", "left", "right"),
        ("size", "size"),
    )

    def __init__(self) -> None:
        self.root = None
        self.size = 0

    def rep_ok(self) -> bool:
        seen = set()
        return self._ordered(self.root, None, None, seen) and self.size == len(seen)

    def _ordered(self, node, low, high, seen) -> bool:
        if node is None:
            return True
        if id(node) in seen:
            return False
        seen.add(id(node))
        if (low is not None and node.key <= low) or (high is not None and node.key >= high):
            return False
        return self._ordered(node.left, low, node.key, seen) and self._ordered(
            node.right, node.key, high, seen
        )

    def contains(self, key: int) -> bool:
        node = self.root
        while node is not None:
            if key == node.key:
                return True
            node = node.left if key < node.key else node.right
        return False

    def add(self, key: int) -> bool:
        if self.root is None:
            self.root = Node(key)
            self.size += 1
            return True
        node = self.root
        while True:
            if key == node.key:
                return False
            side = "left" if key < node.key else "right"
            child = getattr(node, side)
            if child is None:
                setattr(node, side, Node(key))
                self.size += 1
                return True
            node = child

    def remove(self, key: int) -> bool:
        parent, node = None, self.root
        while node is not None and node.key != key:
            parent, node = node, (node.left if key < node.key else node.right)
        if node is None:
            return False
        if node.left is not None and node.right is not None:
            heir_parent, heir = node, node.right
            while heir.left is not None:
                heir_parent, heir = heir, heir.left
            node.key = heir.key
            parent, node = heir_parent, heir
        child = node.left if node.left is not None else node.right
        if parent is None:
            self.root = child
        elif parent.left is node:
            parent.left = child
        else:
            parent.right = child
        self.size -= 1
        return True

    def post_add(self, before, result, key) -> bool:
        return self.contains(key) and result == (not before.contains(key))

    def post_remove(self, before, result, key) -> bool:
        return not self.contains(key) and result == before.contains(key)

    @staticmethod
    def fex_scope(n: int) -> dict:
        return {"Node": n, "Node.key": range(n), "size": range(n + 1)}
