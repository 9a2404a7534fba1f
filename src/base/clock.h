/* The monotonic clock behind every phase time the report gives. */
#ifndef SBA_CLOCK_H
#define SBA_CLOCK_H

/* Seconds since an arbitrary fixed point; only differences mean anything. */
double sba_now(void);

#endif
