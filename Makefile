# The two commands a newcomer needs (README.md): the demo and the tests.
.PHONY: demo test

demo:
	./scripts/demo.sh

test:
	go test ./...
