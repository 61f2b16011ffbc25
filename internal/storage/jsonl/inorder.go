package jsonl

import "runtime"

// inOrder is the pipeline of a rewrite's passes over a log, which parse
// its blocks on every core and apply them in the log's order: produce
// makes the items one after another, on a goroutine of its own, and hands
// each to send; a worker on each core runs work on it; and use gets them
// back one at a time, on the caller's goroutine, in the order they were
// sent, with at most 2*GOMAXPROCS of them waiting. The first error of use
// stops it: send then refuses the next item, and drop gets each item sent
// that use will not get. It returns use's error, else produce's.
func inOrder[T any](produce func(send func(T) bool) error, work func(T), use func(T) error, drop func(T)) error {
	type job struct {
		item T
		done chan struct{}
	}
	workers := runtime.GOMAXPROCS(0)
	todo := make(chan job, workers)
	ordered := make(chan job, 2*workers)
	for range workers {
		go func() {
			for j := range todo {
				work(j.item)
				close(j.done)
			}
		}()
	}
	stop := make(chan struct{})
	produced := make(chan error, 1)
	go func() {
		defer close(ordered)
		defer close(todo)
		produced <- produce(func(item T) bool {
			select {
			case <-stop:
				return false
			default:
			}
			j := job{item, make(chan struct{})}
			select {
			case todo <- j:
				ordered <- j
				return true
			case <-stop:
				return false
			}
		})
	}()
	defer func() {
		close(stop)
		for j := range ordered { // let the producer and the workers finish
			<-j.done
			drop(j.item)
		}
	}()
	for j := range ordered {
		<-j.done
		if err := use(j.item); err != nil {
			return err
		}
	}
	return <-produced
}
