"""The address tests give FastAPI's TestClient: the service's own, http://127.0.0.1.

TestClient's default, `Host: testserver`, is no name the service answers as
(history/api/origin_guard.py), so tests that are not about names use this one.
"""

LOOPBACK = "http://127.0.0.1"
