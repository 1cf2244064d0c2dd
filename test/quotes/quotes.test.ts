import { quoteSuite } from './quotes-flow.js';

quoteSuite('firm quotes through the real doors (lowdb, embedded anvil)');
