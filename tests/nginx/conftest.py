"""The nginx layer's shared fixture: the stack as the loopback stack, whose files and processes the
configuration's tests (test_config.py, test_hop.py) read and restart."""
import pytest


@pytest.fixture(scope="module")
def loopback(stack):
    if stack.kind != "loopback":
        pytest.skip("needs the loopback stack (its files and processes)")
    return stack
