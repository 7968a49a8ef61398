package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lagkit/lagkit/record"
)

// WriterOptions tune a Writer; the zero value gives the defaults.
type WriterOptions struct {
	// Queue is how many records wait for the database before Put blocks
	// (default 16384: at 64 Hz, the paths of 32 players for 8 s).
	Queue int
	// Batch is the most records written in one transaction (default 256).
	Batch int
	// Every is how long a record waits for others to share its
	// transaction (default 100 ms): under light load the writer commits
	// a few times a second, not once per record.
	Every time.Duration
	// MaxBlock bounds how long one Put waits for room in a full queue
	// (default 2 s). A record that still finds no room is dropped and
	// counted, and Close reports it: the database is then too slow for
	// the study, and stalling the server's tick longer would spoil the
	// study as surely.
	MaxBlock time.Duration
	// OnCommit, when set, is called on the writer's goroutine after each
	// committed batch.
	OnCommit func(Commit)
	// AdminToken, when set, is stored with each new study the Writer
	// inserts, in the same transaction (studies.admin_token, which no
	// export writes): DB.AdminToken reads it back for the run that
	// resumes the study.
	AdminToken string
	// Set is the study each new session (a record.Study) joins, by its
	// id (StudySet.ID); 0 starts a new study of the session's name,
	// simulation flag and SetKey, in the session's transaction. A
	// session joins only a study of its name.
	Set int64
	// SetKey is a new study's key (StudySet.Key): what its schedule
	// sets, the counterbalancing group left out.
	SetKey string
}

// Commit describes one committed batch.
type Commit struct {
	Records int   // records in the batch
	Total   int64 // records committed so far by the Writer
	// Lag is how long the batch's oldest record waited from Put to the
	// end of the commit.
	Lag time.Duration
}

// Stats are a Writer's counters. All are safe to read while it runs.
type Stats struct {
	Queued    int64 // records Put
	Committed int64 // records committed
	// Refused counts records not stored because they cannot be: a value
	// the database cannot keep (NaN, invalid UTF-8), or a record before
	// any Study.
	Refused int64
	// Dropped counts records that found the queue full for MaxBlock, and
	// records Put after a write failed or after Close.
	Dropped int64
	// Blocked is the total time Put spent waiting for room in the queue.
	Blocked time.Duration
	// MaxDepth is the deepest the queue has been; MaxLag the longest a
	// record waited from Put to its commit.
	MaxDepth int
	MaxLag   time.Duration
}

// Writer is a record.Sink that stores records in a DB. Put queues a
// record in a bounded queue and returns; one goroutine writes the queue
// in batches, one transaction each, so a batch is stored whole or not at
// all. When the queue is full Put blocks until there is room, at most
// MaxBlock, and the time it waited is counted (Stats.Blocked): a study
// does not lose records to a database that is merely slower for a
// moment. A record.Study inserts a study row, whose id the database
// assigns; the records after it belong to it.
type Writer struct {
	db   *DB
	opts WriterOptions
	q    chan queued
	done chan struct{}
	// closed is only touched by the goroutine using the Sink.
	closed bool

	queued, committed, refused, dropped atomic.Int64
	blocked, maxLag                     atomic.Int64
	maxDepth                            atomic.Int64
	study                               atomic.Int64
	set                                 atomic.Int64

	mu     sync.Mutex
	err    error // the first error met
	failed atomic.Bool

	// Owned by the writing goroutine.
	seq  int64
	stmt map[*table]*sql.Stmt
}

type queued struct {
	r  record.Record
	at time.Time
}

// NewWriter starts a Writer on db. Close it before closing db.
func (db *DB) NewWriter(opts WriterOptions) *Writer {
	if opts.Queue <= 0 {
		opts.Queue = 16384
	}
	if opts.Batch <= 0 {
		opts.Batch = 256
	}
	if opts.Every <= 0 {
		opts.Every = 100 * time.Millisecond
	}
	if opts.MaxBlock <= 0 {
		opts.MaxBlock = 2 * time.Second
	}
	w := &Writer{db: db, opts: opts, q: make(chan queued, opts.Queue), done: make(chan struct{}), stmt: map[*table]*sql.Stmt{}}
	go w.run()
	return w
}

// Put queues r. It returns at once unless the queue is full (see Writer).
func (w *Writer) Put(r record.Record) {
	if w.closed {
		w.dropped.Add(1)
		w.fail(errors.New("store: Put after Close"))
		return
	}
	w.queued.Add(1)
	item := queued{r: r, at: time.Now()}
	select {
	case w.q <- item:
	default:
		w.putFull(item)
	}
	if d := int64(len(w.q)); d > w.maxDepth.Load() {
		w.maxDepth.Store(d)
	}
}

// putFull waits for room in the queue, at most MaxBlock.
func (w *Writer) putFull(item queued) {
	t := time.NewTimer(w.opts.MaxBlock)
	defer t.Stop()
	select {
	case w.q <- item:
		w.blocked.Add(int64(time.Since(item.at)))
	case <-t.C:
		w.blocked.Add(int64(time.Since(item.at)))
		w.dropped.Add(1)
		w.fail(fmt.Errorf("store: %s: queue of %d records full for %v: records dropped", w.db.name, w.opts.Queue, w.opts.MaxBlock))
	}
}

// Close writes what is queued, stops the Writer and returns the first
// error met: a failed write, a refused record or a dropped one.
func (w *Writer) Close() error {
	if !w.closed {
		w.closed = true
		close(w.q)
		<-w.done
		for _, s := range w.stmt {
			s.Close()
		}
	}
	return w.Err()
}

// Err returns the first error met so far, nil if none.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil && w.dropped.Load() > 0 {
		return fmt.Errorf("%w (%d records not stored)", w.err, w.dropped.Load())
	}
	return w.err
}

// Stats returns the Writer's counters.
func (w *Writer) Stats() Stats {
	return Stats{
		Queued: w.queued.Load(), Committed: w.committed.Load(), Refused: w.refused.Load(), Dropped: w.dropped.Load(),
		Blocked: time.Duration(w.blocked.Load()), MaxDepth: int(w.maxDepth.Load()), MaxLag: time.Duration(w.maxLag.Load()),
	}
}

// StudyID returns the id of the last study session the Writer
// committed, 0 before the first.
func (w *Writer) StudyID() int64 { return w.study.Load() }

// SetID returns the id of the study (StudySet) that session belongs to,
// 0 before the first.
func (w *Writer) SetID() int64 { return w.set.Load() }

func (w *Writer) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
}

// run writes the queue in batches: a batch starts with the first record
// to arrive and takes what follows for up to Every, or until it holds
// Batch records.
func (w *Writer) run() {
	defer close(w.done)
	batch := make([]queued, 0, w.opts.Batch)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		first, ok := <-w.q
		if !ok {
			return
		}
		batch = append(batch[:0], first)
		timer.Reset(w.opts.Every)
		open := true
	fill:
		for len(batch) < w.opts.Batch {
			select {
			case r, ok := <-w.q:
				if !ok {
					open = false
					break fill
				}
				batch = append(batch, r)
			case <-timer.C:
				break fill
			}
		}
		timer.Stop()
		w.write(batch)
		if !open {
			return
		}
	}
}

// write stores one batch in one transaction. After a failed write the
// Writer stores nothing more: the records after it would belong to a
// study whose rows may be missing.
func (w *Writer) write(batch []queued) {
	if w.failed.Load() {
		w.dropped.Add(int64(len(batch)))
		return
	}
	ctx := context.Background()
	n, err := w.writeTx(ctx, batch)
	if err != nil {
		w.failed.Store(true)
		w.dropped.Add(int64(len(batch)))
		w.fail(fmt.Errorf("store: %s: writing %d records: %w", w.db.name, len(batch), err))
		return
	}
	total := w.committed.Add(int64(n))
	lag := time.Since(batch[0].at)
	if int64(lag) > w.maxLag.Load() {
		w.maxLag.Store(int64(lag))
	}
	if w.opts.OnCommit != nil {
		w.opts.OnCommit(Commit{Records: n, Total: total, Lag: lag})
	}
}

// writeTx writes batch and returns how many records it stored.
func (w *Writer) writeTx(ctx context.Context, batch []queued) (int, error) {
	tx, err := w.db.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	study, set, seq := w.study.Load(), w.set.Load(), w.seq
	stmts := map[*table]*sql.Stmt{}
	n := 0
	for _, item := range batch {
		t, p := tableOf(item.r)
		if t == nil {
			w.refuse(fmt.Errorf("store: %T is not a record type this store keeps", item.r))
			continue
		}
		fs := t.bind(p)
		if err := checkFields(t, fs); err != nil {
			w.refuse(fmt.Errorf("store: %s record: %w", strings.TrimSuffix(t.name, "s"), err))
			continue
		}
		args := make([]any, 0, len(fs)+2)
		if t == studiesTable {
			for _, f := range fs {
				args = append(args, f)
			}
			if err := tx.QueryRowContext(ctx, w.db.dialect.rebind(studyInsertSQL()), args...).Scan(&study); err != nil {
				return 0, fmt.Errorf("new study: %w", err)
			}
			if w.opts.AdminToken != "" {
				if _, err := tx.ExecContext(ctx, w.db.dialect.rebind("UPDATE studies SET admin_token = ? WHERE id = ?"), w.opts.AdminToken, study); err != nil {
					return 0, fmt.Errorf("new study: admin token: %w", err)
				}
			}
			if set, err = w.joinSet(ctx, tx, p.(*record.Study), study); err != nil {
				return 0, fmt.Errorf("new study: %w", err)
			}
			seq = 0
			n++
			continue
		}
		if study == 0 {
			w.refuse(fmt.Errorf("store: %s record before any study: Put a record.Study first", strings.TrimSuffix(t.name, "s")))
			continue
		}
		args = append(args, study, seq)
		for _, f := range fs {
			args = append(args, f)
		}
		s, err := w.prepared(ctx, tx, stmts, t)
		if err != nil {
			return 0, err
		}
		if _, err := s.ExecContext(ctx, args...); err != nil {
			return 0, fmt.Errorf("%s: %w", t.name, err)
		}
		seq++
		n++
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	w.study.Store(study)
	w.set.Store(set)
	w.seq = seq
	return n, nil
}

// joinSet puts the new session id (st) in its study: opts.Set, or a new
// study created for it. It returns the study's id.
func (w *Writer) joinSet(ctx context.Context, tx *sql.Tx, st *record.Study, id int64) (int64, error) {
	d := w.db.dialect
	set := w.opts.Set
	if set == 0 {
		created, _ := wall{&st.Started}.Value()
		q := d.rebind("INSERT INTO study_sets (name, schedule_key, simulated, created_ns) VALUES (?, ?, ?, ?) RETURNING id")
		if err := tx.QueryRowContext(ctx, q, st.Name, w.opts.SetKey, st.Simulated, created).Scan(&set); err != nil {
			return 0, fmt.Errorf("its study: %w", err)
		}
	} else {
		var name string
		switch err := tx.QueryRowContext(ctx, d.rebind("SELECT name FROM study_sets WHERE id = ?"), set).Scan(&name); {
		case errors.Is(err, sql.ErrNoRows):
			return 0, fmt.Errorf("no study %d to join", set)
		case err != nil:
			return 0, fmt.Errorf("study %d: %w", set, err)
		case name != st.Name:
			return 0, fmt.Errorf("study %d is named %q, not %q: a session joins a study of its name", set, name, st.Name)
		}
	}
	if _, err := tx.ExecContext(ctx, d.rebind("UPDATE studies SET study_set = ? WHERE id = ?"), set, id); err != nil {
		return 0, fmt.Errorf("its study: %w", err)
	}
	return set, nil
}

// prepared returns t's insert statement for tx, preparing it on the
// database the first time.
func (w *Writer) prepared(ctx context.Context, tx *sql.Tx, inTx map[*table]*sql.Stmt, t *table) (*sql.Stmt, error) {
	if s := inTx[t]; s != nil {
		return s, nil
	}
	s := w.stmt[t]
	if s == nil {
		var err error
		s, err = w.db.db.PrepareContext(ctx, w.db.dialect.rebind(t.insertSQL()))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.name, err)
		}
		w.stmt[t] = s
	}
	s = tx.StmtContext(ctx, s)
	inTx[t] = s
	return s, nil
}

func (w *Writer) refuse(err error) {
	w.refused.Add(1)
	w.fail(err)
}

// studyInsertSQL inserts a study, returning the id the database gives
// it.
func studyInsertSQL() string {
	return fmt.Sprintf("INSERT INTO studies (%s) VALUES (%s) RETURNING id", columnList(studiesTable),
		strings.TrimSuffix(strings.Repeat("?, ", len(studiesTable.cols)), ", "))
}
