"""A red-black tree set with parent pointers (the paper's TreeSet subject)."""

from __future__ import annotations


class Node:
    key: int
    red: bool
    left: Node | None
    right: Node | None
    parent: Node | None

    def __init__(self, key: int, parent: Node | None = None) -> None:
        self.key = key
        self.red = True
        self.left = None
        self.right = None
        self.parent = parent


class RedBlackTree:
    root: Node | None
    size: int

    __fex_spec__ = (
        ("tree", ("root",), ("left", "right")),
        ("parent", "parent"),
        ("ordered", "key", "left", "right"),
        ("red_black", "red", "left", "right"),
        ("size", "size"),
    )

    def __init__(self) -> None:
        self.root = None
        self.size = 0

    def rep_ok(self) -> bool:
        if self.root is None:
            return self.size == 0
        if self.root.parent is not None or self.root.red:
            return False
        seen: set[int] = set()
        if self._black_height(self.root, None, None, seen) < 0:
            return False
        return self.size == len(seen)

    def _black_height(self, node, low, high, seen) -> int:
        """Black nodes on every path down from ``node``; -1 when invalid."""
        if node is None:
            return 0
        if id(node) in seen:
            return -1
        seen.add(id(node))
        if (low is not None and node.key <= low) or (high is not None and node.key >= high):
            return -1
        for child in (node.left, node.right):
            if child is not None and (child.parent is not node or (node.red and child.red)):
                return -1
        left = self._black_height(node.left, low, node.key, seen)
        right = self._black_height(node.right, node.key, high, seen)
        if left < 0 or left != right:
            return -1
        return left + (0 if node.red else 1)

    def contains(self, key: int) -> bool:
        return self._find(key) is not None

    def _find(self, key: int) -> Node | None:
        node = self.root
        while node is not None and node.key != key:
            node = node.left if key < node.key else node.right
        return node

    def _rotate(self, node: Node, left: bool) -> None:
        child = node.right if left else node.left
        assert child is not None
        inner = child.left if left else child.right
        if left:
            node.right = inner
        else:
            node.left = inner
        if inner is not None:
            inner.parent = node
        self._hang(child, node)
        if left:
            child.left = node
        else:
            child.right = node
        node.parent = child

    def add(self, key: int) -> bool:
        parent, node = None, self.root
        while node is not None:
            if key == node.key:
                return False
            parent, node = node, (node.left if key < node.key else node.right)
        fresh = Node(key, parent)
        if parent is None:
            self.root = fresh
        elif key < parent.key:
            parent.left = fresh
        else:
            parent.right = fresh
        self.size += 1
        self._fix_add(fresh)
        return True

    def _fix_add(self, node: Node) -> None:
        while node.parent is not None and node.parent.red:
            parent = node.parent
            grand = parent.parent
            assert grand is not None
            on_left = parent is grand.left
            uncle = grand.right if on_left else grand.left
            if uncle is not None and uncle.red:
                parent.red = uncle.red = False
                grand.red = True
                node = grand
                continue
            if node is (parent.right if on_left else parent.left):
                node = parent
                self._rotate(node, on_left)
                parent = node.parent
                assert parent is not None
            parent.red = False
            grand.red = True
            self._rotate(grand, not on_left)
        assert self.root is not None
        self.root.red = False

    def remove(self, key: int) -> bool:
        node = self._find(key)
        if node is None:
            return False
        if node.left is not None and node.right is not None:
            heir = node.right
            while heir.left is not None:
                heir = heir.left
            node.key = heir.key
            node = heir
        child = node.left if node.left is not None else node.right
        if child is not None:
            self._replace(node, child)
            if not node.red:
                self._fix_remove(child)
        else:
            if not node.red:
                self._fix_remove(node)
            self._replace(node, None)
        self.size -= 1
        return True

    def _hang(self, child: Node | None, node: Node) -> None:
        """Put ``child`` where ``node`` hangs (under its parent, or at the root)."""
        if child is not None:
            child.parent = node.parent
        if node.parent is None:
            self.root = child
        elif node is node.parent.left:
            node.parent.left = child
        else:
            node.parent.right = child

    def _replace(self, node: Node, child: Node | None) -> None:
        self._hang(child, node)
        node.parent = node.left = node.right = None

    def _fix_remove(self, node: Node) -> None:
        while node is not self.root and not node.red:
            parent = node.parent
            assert parent is not None
            on_left = node is parent.left
            sibling = parent.right if on_left else parent.left
            assert sibling is not None
            if sibling.red:
                sibling.red, parent.red = False, True
                self._rotate(parent, on_left)
                sibling = parent.right if on_left else parent.left
                assert sibling is not None
            near = sibling.left if on_left else sibling.right
            far = sibling.right if on_left else sibling.left
            if not (near is not None and near.red) and not (far is not None and far.red):
                sibling.red = True
                node = parent
                continue
            if not (far is not None and far.red):
                assert near is not None
                near.red, sibling.red = False, True
                self._rotate(sibling, not on_left)
                sibling = parent.right if on_left else parent.left
                assert sibling is not None
                far = sibling.right if on_left else sibling.left
            sibling.red, parent.red = parent.red, False
            if far is not None:
                far.red = False
            self._rotate(parent, on_left)
            node = self.root  # type: ignore[assignment]
        node.red = False

    def post_add(self, before, result, key) -> bool:
        return self.contains(key) and result == (not before.contains(key))

    def post_remove(self, before, result, key) -> bool:
        return not self.contains(key) and result == before.contains(key)

    @staticmethod
    def fex_scope(n: int) -> dict:
        return {"Node": n, "Node.key": range(n), "size": range(n + 1)}
