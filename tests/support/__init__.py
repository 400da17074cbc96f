"""What the tests share: the resources each test process owns (resources), polling with deadlines (polling),
real worker and web processes (workers, web_server)."""
