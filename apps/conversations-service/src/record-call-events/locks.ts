export { lockConversations } from '../database/locks.js';
