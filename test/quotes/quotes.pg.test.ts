import { quoteSuite } from './quotes-flow.js';

// The same proofs with the service on PostgreSQL (the `pg` project sets TEST_STORE=pg): quotes persist there too.
quoteSuite('firm quotes through the real doors (PostgreSQL, embedded anvil)');
