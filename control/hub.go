package control

import "sync"

// subscriberQueue is how many events a subscriber may fall behind by
// before it is dropped: enough for a burst of state changes across every
// pane, small enough that a stalled reader costs little.
const subscriberQueue = 1024

// Hub fans events out to subscribers without ever waiting for one: a
// subscriber that falls a whole queue behind is dropped, and learns so
// from Dropped, so one stalled `ctl events` reader never slows the server
// or the others.
type Hub struct {
	mu   sync.Mutex
	subs map[*Subscription]struct{}
}

// Subscription is one subscriber's queue of events.
type Subscription struct {
	hub     *Hub
	events  chan Event
	dropped chan struct{} // closed when the hub dropped this subscriber
	once    sync.Once
}

// NewHub returns a hub with no subscribers.
func NewHub() *Hub { return &Hub{subs: map[*Subscription]struct{}{}} }

// Subscribe starts a subscription; Close it when done.
func (h *Hub) Subscribe() *Subscription {
	s := &Subscription{hub: h, events: make(chan Event, subscriberQueue), dropped: make(chan struct{})}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s
}

// Publish queues e for every subscriber and never blocks: a subscriber
// whose queue is full is dropped instead.
func (h *Hub) Publish(e Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		select {
		case s.events <- e:
		default:
			delete(h.subs, s)
			close(s.dropped)
		}
	}
}

// Subscribers is how many subscriptions are live.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Events delivers the subscription's events in order.
func (s *Subscription) Events() <-chan Event { return s.events }

// Dropped is closed when the hub dropped the subscription for falling
// behind; the events already queued can still be read.
func (s *Subscription) Dropped() <-chan struct{} { return s.dropped }

// Close ends the subscription. It is idempotent.
func (s *Subscription) Close() {
	s.once.Do(func() {
		s.hub.mu.Lock()
		delete(s.hub.subs, s)
		s.hub.mu.Unlock()
	})
}
