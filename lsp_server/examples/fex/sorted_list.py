"""A sorted singly linked list of distinct keys (the paper's first subject)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Node:
    key: int
    next: Node | None = None


@dataclass
class SortedList:
    head: Node | None = None
    size: int = 0

    # The relational form of rep_ok, for the SAT route.
    __fex_spec__ = (
        ("tree", ("head",), ("next",)),
        ("sorted", "key", "next"),
        ("size", "size"),
    )

    def rep_ok(self) -> bool:
        seen = set()
        node = self.head
        while node is not None:
            if id(node) in seen:
                return False
            seen.add(id(node))
            if node.next is not None and not node.key < node.next.key:
                return False
            node = node.next
        return self.size == len(seen)

    def contains(self, key: int) -> bool:
        node = self.head
        while node is not None and node.key < key:
            node = node.next
        return node is not None and node.key == key

    def add(self, key: int) -> bool:
        previous, node = None, self.head
        while node is not None and node.key < key:
            previous, node = node, node.next
        if node is not None and node.key == key:
            return False
        fresh = Node(key, node)
        if previous is None:
            self.head = fresh
        else:
            previous.next = fresh
        self.size += 1
        return True

    def remove(self, key: int) -> bool:
        previous, node = None, self.head
        while node is not None and node.key < key:
            previous, node = node, node.next
        if node is None or node.key != key:
            return False
        if previous is None:
            self.head = node.next
        else:
            previous.next = node.next
        self.size -= 1
        return True

    def post_add(self, before: SortedList, result: bool, key: int) -> bool:
        return self.contains(key) and result == (not before.contains(key))

    def post_remove(self, before: SortedList, result: bool, key: int) -> bool:
        return not self.contains(key) and result == before.contains(key)


def fex_scope(n: int) -> dict:
    return {"Node": n, "Node.key": range(n), "size": range(n + 1)}
