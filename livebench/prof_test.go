package livebench

import (
	"context"
	"os"
	"testing"
	"time"
)

func TestProfileLive(t *testing.T) {
	tr := os.Getenv("PROF_TRANSPORT")
	if tr == "" {
		t.Skip()
	}
	r, err := Run(context.Background(), Config{Transport: tr, Players: 64, TickRate: 64, Duration: 15 * time.Second, CoreDuration: 5 * time.Second, Child: child})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", r)
}
