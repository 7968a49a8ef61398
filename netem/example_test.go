package netem_test

import (
	"fmt"
	"time"

	"github.com/lagkit/lagkit/netem"
)

// A driver sends a packet per 64 Hz tick over a lossy 60 ms path and jumps
// its virtual clock from delivery to delivery.
func Example() {
	cfg := netem.Config{
		Latency: 60 * time.Millisecond,
		Jitter:  5 * time.Millisecond,
		Burst:   netem.GilbertElliott(0.02, 3), // 2% loss in bursts of 3 packets
	}
	link, err := netem.NewLink(cfg, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	tick := time.Second / 64
	for i := range 640 {
		link.Send(time.Duration(i)*tick, []byte("cmd"))
	}
	var buf []byte
	for {
		at, ok := link.Next()
		if !ok {
			break
		}
		buf, _ = link.Receive(at, buf[:0])
	}
	s := link.Stats()
	fmt.Printf("sent %d, delivered %d, lost %d, mean delay %v\n",
		s.Sent, s.Delivered, s.BurstLost, s.MeanDelay().Round(time.Millisecond))
	// Output: sent 640, delivered 631, lost 9, mean delay 60ms
}
