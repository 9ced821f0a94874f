"""The bridge between LSP (pygls, lsprotocol) and the packages: conversion and handlers.

Only this package and ``lsp_server/server.py`` import pygls or lsprotocol.
"""
