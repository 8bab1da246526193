/**
 * Runs the process on UTC, imported first by every entry: opening hours are evaluated by a library that reads the
 * process's own zone (src/content/hours.ts), and a thread started later (the publisher's, Bun's serving threads)
 * can no longer change it. Nothing else the service computes reads the process zone: every time names its own.
 */
process.env.TZ = 'UTC';
